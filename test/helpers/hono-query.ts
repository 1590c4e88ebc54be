/**
 * Hono's etag middleware test "Should handle conditional QUERY requests" (honojs/hono,
 * src/middleware/etag/index.test.ts), as a driver over a real socket: a server answering
 * `QUERY /etag/query` with the text `Hono is great` must pass it. fetch sends a string body as
 * `text/plain;charset=UTF-8`.
 */
import type { Test } from 'tap'

export async function conditionalQueryRequests(t: Test, port: number): Promise<void> {
  const request = (headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${port}/etag/query`, { method: 'QUERY', body: 'select *', headers })

  // unconditional QUERY
  let res = await request()
  t.equal(res.status, 200)
  t.ok(res.headers.get('ETag'))
  const etagHeaderValue = res.headers.get('ETag') ?? ''
  t.equal(await res.text(), 'Hono is great')

  // conditional QUERY with the wrong ETag
  res = await request({ 'If-None-Match': '"not the right etag"' })
  t.equal(res.status, 200)
  await res.text()

  // conditional QUERY with matching ETag
  res = await request({ 'If-None-Match': etagHeaderValue })
  t.equal(res.status, 304)
  t.equal(res.headers.get('ETag'), etagHeaderValue)
  t.equal(await res.text(), '')

  // conditional QUERY with `*` wildcard
  res = await request({ 'If-None-Match': '*' })
  t.equal(res.status, 304)
  await res.text()
}
