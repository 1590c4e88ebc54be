/** Shared pieces of the hostile-input tests: arbitraries for header values and a checked inject. */
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { errorFormProblems } from './form.js'

/** A character a client can put in a field value (RFC 9110 §5.5: VCHAR, SP, HTAB, obs-text). */
export const fieldChar: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
  )
  .map((c) => String.fromCharCode(c))

export const junk: fc.Arbitrary<string> = fc.string({ unit: fieldChar, maxLength: 80 })

/** Pieces of header grammar that parsers split on or treat specially. */
const grammar = fc.constantFrom(
  ',',
  ';',
  '=',
  '"',
  '\\',
  ' ',
  '\t',
  '*',
  '/',
  '-',
  '+',
  '.',
  'q=',
  'q=0',
  'q=1.5',
  'q=-1',
  ';q=0.001',
  'W/',
  '""',
  ',,',
  ';;',
  '==',
  '*/*',
  'bytes=',
  '0-',
  '-0',
  '99999999999999999999',
  'NaN',
  '1e3',
  '%00',
  '\u00ff',
)

type Op = ['insert' | 'delete' | 'repeat' | 'replace', number, number, string]

function applyOps(seed: string, ops: Op[]): string {
  let s = seed
  for (const [kind, a, b, piece] of ops) {
    const i = s.length === 0 ? 0 : a % (s.length + 1)
    const j = Math.min(s.length, i + (b % 12))
    if (kind === 'insert') s = s.slice(0, i) + piece + s.slice(i)
    else if (kind === 'delete') s = s.slice(0, i) + s.slice(j)
    else if (kind === 'repeat') s = s.slice(0, i) + s.slice(i, j).repeat(1 + (b % 7)) + s.slice(j)
    else s = s.slice(0, i) + piece + s.slice(j)
  }
  return s
}

/** A valid seed, a seed mutated by a few grammar-aware edits, or plain junk. */
export function mutated(seeds: readonly string[]): fc.Arbitrary<string> {
  const seed = fc.constantFrom(...seeds)
  const op: fc.Arbitrary<Op> = fc.tuple(
    fc.constantFrom('insert', 'delete', 'repeat', 'replace'),
    fc.nat(),
    fc.nat(),
    fc.oneof(grammar, junk),
  ) as fc.Arbitrary<Op>
  return fc.oneof(
    { weight: 6, arbitrary: seed },
    {
      weight: 3,
      arbitrary: fc
        .tuple(seed, fc.array(op, { minLength: 1, maxLength: 5 }))
        .map(([s, ops]) => applyOps(s, ops)),
    },
    { weight: 1, arbitrary: junk },
  )
}

/** Node trims a field value's surrounding whitespace on the wire; inject passes it as given. */
export function headerSafe(value: string): string {
  return value.replace(/^[\t ]+|[\t ]+$/g, '')
}

export interface Counter {
  cases: number
  /** How many answers of each status (to show the cases reached the handlers, not only 4xx). */
  statuses?: Map<number, number>
}

/**
 * Sends one request and throws (with the request, for fast-check's counterexample) when the
 * answer is a 5xx or an error not in the configured form.
 */
export async function send(
  app: FastifyInstance,
  counter: Counter,
  options: InjectOptions,
): Promise<number> {
  counter.cases++
  // Let the event loop turn between requests, as it does between requests on a socket: a
  // chain of injects that never leaves the microtask queue starves @fastify/under-pressure's
  // delay histogram (no sample in an interval reads as an infinite delay: 503).
  await new Promise((resolve) => setImmediate(resolve))
  const res = await app.inject(options)
  counter.statuses?.set(res.statusCode, (counter.statuses.get(res.statusCode) ?? 0) + 1)
  const what = () => JSON.stringify({ ...options, payload: undefined }).slice(0, 600)
  if (res.statusCode >= 500)
    throw new Error(`${res.statusCode} for ${what()}: ${res.body.slice(0, 300)}`)
  const problems = errorFormProblems(res, String(options.method ?? 'GET'))
  if (problems.length > 0) {
    throw new Error(
      `${res.statusCode} not in the error form (${problems.join(', ')}) for ${what()}: ${res.body.slice(0, 300)}`,
    )
  }
  return res.statusCode
}

/** Prototype of a plain object, untouched. */
export function prototypeProblems(): string[] {
  const names = Object.getOwnPropertyNames(Object.prototype).sort().join(',')
  const expected = [
    '__defineGetter__',
    '__defineSetter__',
    '__lookupGetter__',
    '__lookupSetter__',
    '__proto__',
    'constructor',
    'hasOwnProperty',
    'isPrototypeOf',
    'propertyIsEnumerable',
    'toLocaleString',
    'toString',
    'valueOf',
  ]
    .sort()
    .join(',')
  const out: string[] = []
  if (names !== expected) out.push(`Object.prototype has ${names}`)
  const probe = {} as Record<string, unknown>
  for (const key of ['polluted', 'admin', 'isAdmin', 'x', 'a', 'b']) {
    if (probe[key] !== undefined) out.push(`({}).${key} is ${String(probe[key])}`)
  }
  return out
}
