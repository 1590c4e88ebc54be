// When each server takes each workload within a round. No I/O: test/tools checks it.

/**
 * A round's runs, in order: each workload on every server in turn, forwards, then backwards for
 * the next workload or round (A B C, C B A, ...). One workload's figures for two servers are
 * then seconds apart, and no server always runs first or right after the same one.
 */
export function roundPlan(servers, workloads, round) {
  const plan = []
  for (const [index, workload] of workloads.entries()) {
    const order = (round + index) % 2 === 0 ? servers : [...servers].reverse()
    for (const server of order) plan.push({ server, workload })
  }
  return plan
}
