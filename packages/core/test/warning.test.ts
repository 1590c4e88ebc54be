import { Writable } from 'node:stream'
import Fastify, { type FastifyBaseLogger } from 'fastify'
import { test } from 'tap'
import { developerWarning, WARNING_TYPE } from '@restwell/core/internal'

/** The process warnings `fn` leads to (Node emits them on the next tick). */
async function processWarnings(fn: () => void): Promise<Error[]> {
  const seen: Error[] = []
  const listener = (warning: Error): void => {
    seen.push(warning)
  }
  process.on('warning', listener)
  try {
    fn()
    await new Promise((resolve) => setImmediate(resolve))
  } finally {
    process.off('warning', listener)
  }
  return seen
}

/** A Fastify logger at `level` and the lines it wrote. */
function logger(level: string): { log: FastifyBaseLogger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(JSON.parse(String(chunk)))
      callback()
    },
  })
  return { log: Fastify({ logger: { level, stream } }).log, lines }
}

test('without a logger: a RestwellWarning on the process, once per code and message', async (t) => {
  const log = Fastify().log
  const first = await processWarnings(() => {
    developerWarning(log, 'RESTWELL_TEST', 'restwell-test: first', { route: '/x' })
    developerWarning(log, 'RESTWELL_TEST', 'restwell-test: first', { route: '/x' })
    developerWarning(log, 'RESTWELL_OTHER', 'restwell-test: first')
  })
  t.equal(WARNING_TYPE, 'RestwellWarning')
  t.match(first, [
    { name: 'RestwellWarning', code: 'RESTWELL_TEST', message: 'restwell-test: first' },
    { name: 'RestwellWarning', code: 'RESTWELL_OTHER', message: 'restwell-test: first' },
  ])
  t.equal(first.length, 2, 'the repeat is not emitted again')
})

test('a logger that shows warn lines gets the line, and no process warning', async (t) => {
  const { log, lines } = logger('info')
  const seen = await processWarnings(() => {
    developerWarning(log, 'RESTWELL_TEST', 'restwell-test: logged', { route: '/y' })
  })
  t.same(seen, [])
  t.match(lines, [{ level: 40, route: '/y', msg: 'restwell-test: logged' }])
})

test('a logger that hides warn lines, or cannot tell: the process warning too', async (t) => {
  const { log, lines } = logger('error')
  const quiet = await processWarnings(() => {
    developerWarning(log, 'RESTWELL_TEST', 'restwell-test: quiet logger')
  })
  t.match(quiet, [{ name: 'RestwellWarning', message: 'restwell-test: quiet logger' }])
  t.same(lines, [])
  const written: unknown[][] = []
  const custom = {
    warn: (...args: unknown[]) => written.push(args),
  } as unknown as FastifyBaseLogger
  const unknown = await processWarnings(() => {
    developerWarning(custom, 'RESTWELL_TEST', 'restwell-test: custom logger')
  })
  t.match(unknown, [{ name: 'RestwellWarning', message: 'restwell-test: custom logger' }])
  t.same(written, [[{}, 'restwell-test: custom logger']])
})

test('the memory of emitted warnings is bounded', async (t) => {
  const emitted = t.capture(process, 'emitWarning', () => {})
  const log = Fastify().log
  developerWarning(log, 'RESTWELL_BOUND', 'restwell-test: bound 0')
  for (let i = 1; i <= 1000; i++)
    developerWarning(log, 'RESTWELL_BOUND', `restwell-test: bound ${i}`)
  developerWarning(log, 'RESTWELL_BOUND', 'restwell-test: bound 0')
  t.equal(emitted().length, 1002, 'forgotten once the bound is reached: emitted again')
})
