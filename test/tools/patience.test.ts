/** The one bound of the tests that wait: `.taprc`'s per-file timeout agrees with it. */
import { readFileSync } from 'node:fs'
import { test } from 'tap'
import { PATIENCE_MS, TAP_FILE_TIMEOUT_S, until } from '../helpers/patience.js'

test(".taprc's per-file timeout is TAP_FILE_TIMEOUT_S, above PATIENCE_MS", async (t) => {
  const taprc = readFileSync(new URL('../../.taprc', import.meta.url), 'utf8')
  t.match(taprc, new RegExp(`^timeout: ${TAP_FILE_TIMEOUT_S}$`, 'm'))
  t.ok(TAP_FILE_TIMEOUT_S * 1000 >= 5 * PATIENCE_MS, 'room for several waits in one file')
})

test('until: goes on once the condition holds, or says what did not happen', async (t) => {
  let calls = 0
  await until(() => ++calls === 3, 'the third call')
  t.equal(calls, 3)
  await until(async () => true)
  await t.rejects(
    until(() => false, 'the impossible', 30),
    /the impossible: not within 30 ms/,
  )
})
