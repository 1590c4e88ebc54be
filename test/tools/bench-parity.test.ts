/**
 * The bench's parity check, on made-up probes: the servers that write restwell's conventions by
 * hand (raw node, Fastify hand-specialized) must send what restwell sends, or the run fails.
 */
import { test } from 'tap'

interface Plan {
  workload: { id: string; spec: number }
  expected: { status: number; absent?: boolean }
  status: number
  responseHeaders: Record<string, string>
}
interface Entry {
  server: { id: string }
  plans: Map<string, Plan>
}
interface ParityModule {
  parityProblems(entries: Entry[]): string[]
  VARYING_HEADERS: Set<string>
}
// The bench is plain JavaScript outside the TypeScript project: loaded by URL, typed here.
const { parityProblems, VARYING_HEADERS } = (await import(
  new URL('../bench/parity.mjs', import.meta.url).href
)) as ParityModule

const SPEC: Record<string, number> = { get1k: 200, 'get1k-hashed-304': 304, batch20: 207 }

/** restwell's headers on get1k. */
const GET1K: Record<string, string> = {
  'x-request-id': 'a',
  'x-ratelimit-remaining': '9',
  etag: '"7"',
  vary: 'Accept, Accept-Encoding',
  'cache-control': 'no-cache',
  'content-length': '1000',
}

/** restwell's answers (what the probes found). */
const RESTWELL: Record<string, [number, Record<string, string>]> = {
  get1k: [200, GET1K],
  'get1k-hashed-304': [304, { 'x-request-id': 'b', etag: '"x"', vary: 'Accept, Accept-Encoding' }],
  batch20: [207, { 'x-request-id': 'c', 'cache-control': 'no-store' }],
}

function entry(
  id: string,
  answers: Record<string, [number, Record<string, string>]>,
  absent: string[] = [],
): Entry {
  const plans = new Map<string, Plan>()
  for (const [workload, [status, headers]] of Object.entries(answers)) {
    plans.set(workload, {
      workload: { id: workload, spec: SPEC[workload] as number },
      expected: { status, absent: absent.includes(workload) },
      status,
      responseHeaders: headers,
    })
  }
  return { server: { id }, plans }
}

/** `answers` with `change` applied to one workload's headers. */
function changed(
  workload: string,
  change: (headers: Record<string, string>) => Record<string, string>,
  status?: number,
) {
  const [own, headers] = RESTWELL[workload] as [number, Record<string, string>]
  return { ...RESTWELL, [workload]: [status ?? own, change({ ...headers })] } as typeof RESTWELL
}

test('Fastify hand-specialized: the same status and headers as restwell on each workload', async (t) => {
  const restwell = entry('restwell', RESTWELL)
  // Other request ids, counters and tags: values that change per request or per recipe.
  const same = changed('get1k', (h) => ({
    ...h,
    'x-request-id': 'z',
    'x-ratelimit-remaining': '8',
    etag: '"other"',
  }))
  t.same(parityProblems([restwell, entry('fastify-special', same)]), [])
  t.ok(VARYING_HEADERS.has('date'), 'the Date of each answer too')

  const { vary: _vary, ...withoutVary } = GET1K
  t.same(
    parityProblems([
      restwell,
      entry(
        'fastify-special',
        changed('get1k', () => withoutVary),
      ),
    ]),
    ["fastify-special get1k: does not send restwell's vary"],
  )
  t.same(
    parityProblems([
      restwell,
      entry(
        'fastify-special',
        changed('get1k', (h) => ({ ...h, 'accept-ranges': 'bytes' })),
      ),
    ]),
    ['fastify-special get1k: sends accept-ranges, which restwell does not'],
  )
  t.same(
    parityProblems([
      restwell,
      entry(
        'fastify-special',
        changed('get1k', (h) => ({ ...h, 'cache-control': 'private' })),
      ),
    ]),
    ['fastify-special get1k: cache-control "private", restwell\'s "no-cache"'],
  )
  t.same(
    parityProblems([
      restwell,
      entry(
        'fastify-special',
        changed('get1k-hashed-304', (h) => h, 200),
      ),
    ]),
    ["fastify-special get1k-hashed-304: status 200, restwell's 304"],
  )
  t.same(
    parityProblems([restwell, entry('fastify-special', { get1k: [200, GET1K] })]),
    [],
    'a workload it did not run is not compared',
  )
})

test('raw node: every header restwell sends where both answer to spec', async (t) => {
  const restwell = entry('restwell', RESTWELL)
  const { 'cache-control': _cc, ...rest } = GET1K
  // Raw node may send more, and other values; it declares no batch endpoint (absent).
  const node = entry(
    'node',
    {
      ...changed('get1k', () => ({ ...rest, 'x-extra': '1', vary: 'Accept' })),
      batch20: [404, {}],
    },
    ['batch20'],
  )
  t.same(parityProblems([restwell, node]), [
    "node get1k: does not write restwell's cache-control by hand",
  ])
  t.same(parityProblems([node]), [], 'without restwell there is nothing to compare')
})
