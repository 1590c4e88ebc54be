// The yardsticks that write restwell's conventions by hand must send what restwell sends, or
// the comparison is unfair: checked on each round's probes, before any load (`run.mjs`).

/** Headers whose values change with each request, or with how a validator is made: names only. */
export const VARYING_HEADERS = new Set([
  'date',
  'x-request-id',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'etag',
])

/**
 * What the hand-written servers of a round do not send as restwell does, one line each. Each
 * entry has `server.id` and `plans`: workload id -> `{ workload, expected, status, responseHeaders }`
 * (`responseHeaders`: those of the probe's answer). Raw node must send every header restwell sends where both answer to
 * spec; Fastify hand-specialized must answer every workload with restwell's status and the same
 * headers, with the same values but for `VARYING_HEADERS`.
 */
export function parityProblems(entries) {
  const byId = new Map(entries.map((entry) => [entry.server.id, entry]))
  const restwell = byId.get('restwell')
  if (restwell === undefined) return []
  const problems = []
  const node = byId.get('node')
  const special = byId.get('fastify-special')
  for (const [id, theirs] of restwell.plans) {
    const names = Object.keys(theirs.responseHeaders)
    const mine = node?.plans.get(id)
    // Both to spec only: a workload node declares absent (no batch endpoint) is not compared.
    if (mine !== undefined && !mine.expected.absent && theirs.status === theirs.workload.spec) {
      const missing = names.filter((name) => !(name in mine.responseHeaders))
      if (missing.length > 0) {
        problems.push(`node ${id}: does not write restwell's ${missing.join(', ')} by hand`)
      }
    }
    const hand = special?.plans.get(id)
    if (hand === undefined) continue
    if (hand.status !== theirs.status) {
      problems.push(`fastify-special ${id}: status ${hand.status}, restwell's ${theirs.status}`)
    }
    const missing = names.filter((name) => !(name in hand.responseHeaders))
    const extra = Object.keys(hand.responseHeaders).filter(
      (name) => !(name in theirs.responseHeaders),
    )
    const different = names.filter(
      (name) =>
        name in hand.responseHeaders &&
        !VARYING_HEADERS.has(name) &&
        String(hand.responseHeaders[name]) !== String(theirs.responseHeaders[name]),
    )
    if (missing.length > 0) {
      problems.push(`fastify-special ${id}: does not send restwell's ${missing.join(', ')}`)
    }
    if (extra.length > 0) {
      problems.push(`fastify-special ${id}: sends ${extra.join(', ')}, which restwell does not`)
    }
    for (const name of different) {
      problems.push(
        `fastify-special ${id}: ${name} ${JSON.stringify(hand.responseHeaders[name])}, restwell's ${JSON.stringify(theirs.responseHeaders[name])}`,
      )
    }
  }
  return problems
}
