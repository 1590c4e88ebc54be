import { test } from 'tap'
import { buildApp } from '../src/app.js'

test('the example answers with every convention restwell has so far', async (t) => {
  const app = await buildApp()
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const base = `http://127.0.0.1:${port}`

  const list = await fetch(`${base}/v1/books`)
  t.equal(list.status, 200)
  t.equal(((await list.json()) as unknown[]).length, 2)

  const created = await fetch(`${base}/v1/books`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Dune', isbn: '978-0441013593' }),
  })
  t.equal(created.status, 201)
  t.equal(created.headers.get('location'), '/v1/books/3')
  t.match(await created.json(), { id: 3, title: 'Dune', status: 'available' })

  const invalid = await fetch(`${base}/v1/books`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: '' }),
  })
  t.equal(invalid.status, 400)
  t.equal(((await invalid.json()) as { error: { code: string } }).error.code, 'VALIDATION_ERROR')

  const notAllowed = await fetch(`${base}/v1/books/1`, { method: 'PATCH' })
  t.equal(notAllowed.status, 405)
  t.equal(notAllowed.headers.get('allow'), 'GET, HEAD, DELETE, OPTIONS')

  const missing = await fetch(`${base}/v1/books/99`)
  t.equal(missing.status, 404)

  const deleted = await fetch(`${base}/v1/books/3`, { method: 'DELETE' })
  t.equal(deleted.status, 204)
})
