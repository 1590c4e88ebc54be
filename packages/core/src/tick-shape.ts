/**
 * Keeps the hidden classes of `process.nextTick`'s tick objects alive for the life of the
 * process. Importing this module keeps one tick object.
 *
 * Why: V8 gives the object literal Node builds per tick (`{ [async_id_symbol], …, callback, args }`)
 * one hidden class per property added, and holds them weakly. A full garbage collection while no
 * tick object is alive frees them (a start-up collection often does); the next tick gets new
 * ones, the literal's feedback no longer matches and turns megamorphic for good, and every later
 * tick adds its four properties in V8's runtime: on Node 20 about 4.7k instructions a tick
 * instead of about 100, some 33k for each 1 KB GET. One tick object kept keeps its classes.
 */
import { executionAsyncResource } from 'node:async_hooks'

/**
 * Where the tick object is kept: `globalThis[TICK_OBJECT]`. `Symbol.for`, so the ESM and the CJS
 * build of this package keep one between them.
 */
export const TICK_OBJECT: unique symbol = Symbol.for('restwell.tickObject')

const holder = globalThis as typeof globalThis & { [TICK_OBJECT]?: object }
if (holder[TICK_OBJECT] === undefined) {
  // Taken at once: a second copy of this module loaded before the tick runs queues none.
  holder[TICK_OBJECT] = holder
  process.nextTick(() => {
    // Inside a tick's callback, the current async resource is that tick's object.
    holder[TICK_OBJECT] = executionAsyncResource()
  })
}
