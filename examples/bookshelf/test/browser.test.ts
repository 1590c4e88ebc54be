/**
 * A real browser (headless Chromium) on a page served from another origin calls the API with
 * fetch: PATCH + Authorization + If-Match (so Chromium sends a real CORS preflight), reads the
 * exposed ETag, Link and Location headers, and is refused from an origin the API does not allow.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chromium } from 'playwright-core'
import { type Test, test } from 'tap'
import { DEV_TOKENS } from '../src/config.js'
import { start, tempDir } from './helpers.js'

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

async function pageServer(t: Test): Promise<{ origin: string }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end('<!doctype html><title>bookshelf client</title><p>client</p>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  // The page's origin is http://localhost:<port>; the API's is http://127.0.0.1:<port>.
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}` }
}

test('a page on another origin uses the API through CORS; another origin is refused', async (t) => {
  const allowed = await pageServer(t)
  const refused = await pageServer(t)
  const api = await start(t, { dataDir: tempDir(t) }, { corsOrigins: [allowed.origin] })
  const seen: string[] = []
  api.app.server.on('request', (request) => {
    seen.push(
      `${request.method} ${request.url} ${request.headers['access-control-request-method'] ?? ''}`.trim(),
    )
  })

  const browser = await chromium.launchPersistentContext(tempDir(t, 'chromium-'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ARGS,
  })
  t.teardown(() => browser.close())
  const page = browser.pages()[0] ?? (await browser.newPage())

  await page.goto(allowed.origin)
  const result = await page.evaluate(
    async ({ base, read, write }) => {
      const list = await fetch(`${base}/v1/books?status=available&limit=2`, {
        headers: { authorization: `Bearer ${read}` },
      })
      const book = await fetch(`${base}/v1/books/1`, {
        headers: { authorization: `Bearer ${read}` },
      })
      const etag = book.headers.get('etag')
      const patched = await fetch(`${base}/v1/books/1`, {
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${write}`,
          'if-match': etag ?? '',
          'content-type': 'application/merge-patch+json',
        },
        body: JSON.stringify({ status: 'checked-out' }),
      })
      const stale = await fetch(`${base}/v1/books/1`, {
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${write}`,
          'if-match': etag ?? '',
          'content-type': 'application/merge-patch+json',
        },
        body: JSON.stringify({ status: 'available' }),
      })
      const created = await fetch(`${base}/v1/books`, {
        method: 'POST',
        headers: { authorization: `Bearer ${write}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Bloodchild', isbn: '978-1583226988', authorId: 2 }),
      })
      const anonymous = await fetch(`${base}/v1/books/1`)
      return {
        link: list.headers.get('link'),
        total: list.headers.get('x-total-count'),
        etag,
        patchedStatus: patched.status,
        patchedEtag: patched.headers.get('etag'),
        patchedBody: await patched.json(),
        staleStatus: stale.status,
        createdStatus: created.status,
        location: created.headers.get('location'),
        anonymousStatus: anonymous.status,
        challenge: anonymous.headers.get('www-authenticate'),
      }
    },
    { base: api.base, read: DEV_TOKENS.read, write: DEV_TOKENS.write },
  )
  t.match(
    result.link,
    /<\/v1\/books\?status=available&page=2&limit=2>; rel="next"/,
    'Link is readable',
  )
  t.equal(result.total, '4')
  t.equal(result.etag, '"1"', 'ETag is readable')
  t.equal(result.patchedStatus, 200)
  t.equal(result.patchedEtag, '"2"')
  t.match(result.patchedBody, { id: 1, status: 'checked-out' })
  t.equal(result.staleStatus, 412, 'the old ETag no longer matches')
  t.equal(result.createdStatus, 201)
  t.equal(result.location, '/v1/books/8', 'Location is readable')
  t.equal(result.anonymousStatus, 401, 'the 401 carries CORS headers, so the page can read it')
  t.equal(result.challenge, 'Bearer realm="api"')
  t.ok(seen.includes('OPTIONS /v1/books/1 PATCH'), 'Chromium sent a real preflight for the PATCH')

  await page.goto(refused.origin)
  const blocked = await page.evaluate(
    async ({ base, write }) => {
      try {
        await fetch(`${base}/v1/books/1`, {
          method: 'PATCH',
          headers: {
            authorization: `Bearer ${write}`,
            'if-match': '"2"',
            'content-type': 'application/merge-patch+json',
          },
          body: JSON.stringify({ status: 'archived' }),
        })
        return 'allowed'
      } catch (error) {
        return (error as Error).name
      }
    },
    { base: api.base, write: DEV_TOKENS.write },
  )
  t.equal(blocked, 'TypeError', 'fetch from a disallowed origin fails')
  const after = await api.call('GET', '/v1/books/1')
  t.equal(((await after.json()) as { status: string }).status, 'checked-out', 'and nothing changed')
  t.equal(
    seen.filter((line) => line.startsWith('PATCH')).length,
    2,
    'the refused PATCH never reached the API',
  )
})
