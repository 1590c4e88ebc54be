/**
 * How long a test waits, named once. A test waits for a condition (a port that answers, a log
 * line, a count) and goes on the moment it holds; the bound only turns a hang into a failure
 * that says what did not happen, so it is generous: shared CI machines run at a load average of
 * 9 on their 2 cores. tap's per-file `timeout` (`.taprc`, `TAP_FILE_TIMEOUT_S`) is above it.
 * `RESTWELL_TEST_PATIENCE` multiplies it on slower machines.
 */

const SCALE = Number(process.env.RESTWELL_TEST_PATIENCE ?? 1) || 1

/** The longest any one condition is waited for. */
export const PATIENCE_MS: number = 120_000 * SCALE

/** tap's per-file timeout in `.taprc`, seconds: a whole file, several waits included. */
export const TAP_FILE_TIMEOUT_S = 900

/** How often a condition is polled. */
const POLL_MS = 25

/** Resolves once `check()` holds; rejects naming `what` when it has not after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what = 'the condition',
  ms: number = PATIENCE_MS,
): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}
