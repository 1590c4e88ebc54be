import restwellErrors from '@restwell/errors'
import Fastify from 'fastify'
import { test } from 'tap'
import { appendVary, restwellNegotiation } from '../src/index.js'

test('over a real socket: headers on the wire, Vary merged with a later plugin', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellNegotiation, { languages: ['en', 'de'] })
  // Stands in for @fastify/compress, which adds Accept-Encoding to Vary in onSend.
  app.addHook('onSend', async (_request, reply, payload) => {
    appendVary(reply, 'accept-encoding', 'Accept')
    return payload
  })
  app.get('/books/:id', async () => ({ id: 1, title: 'Dune' }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const address = app.server.address() as { port: number }
  const base = `http://127.0.0.1:${address.port}`

  const xml = await fetch(`${base}/books/1`, {
    headers: { accept: 'application/xml', 'accept-language': 'de' },
  })
  t.equal(xml.status, 200)
  t.equal(xml.headers.get('content-type'), 'application/xml; charset=utf-8')
  t.equal(xml.headers.get('content-language'), 'de')
  t.equal(xml.headers.get('vary'), 'Accept-Encoding, Accept, Accept-Language')
  t.match(await xml.text(), '<title>Dune</title>')

  const refused = await fetch(`${base}/books/1`, { headers: { accept: 'text/html' } })
  t.equal(refused.status, 406)
  t.match(refused.headers.get('accept'), /^application\/json, application\/xml/)
  const names = refused.headers
    .get('vary')!
    .split(', ')
    .map((n) => n.toLowerCase())
  // An error is not localized: it varies by Accept (and the later plugin's name), each once.
  t.same(names.sort(), ['accept', 'accept-encoding'], 'each name once, no Accept-Language')

  const upload = new FormData()
  upload.append('title', 'Dune')
  upload.append('cover', new Blob(['png'], { type: 'image/png' }), 'cover.png')
  app.log.level = 'silent'
  const posted = await fetch(`${base}/books/1`, { method: 'POST', body: upload })
  t.equal(posted.status, 404, 'no POST route: the body is drained and the 404 answered')
})

test('over a real socket: multipart upload parsed and a too-large file refused with 413', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellNegotiation, { multipart: { limits: { fileSize: 1024 } } })
  const config = { negotiation: { consumes: ['multipart/form-data'] } }
  app.post('/covers', { config }, async (request) => {
    const body = request.body as { title: string; cover: { filename: string; data: Buffer } }
    return { title: body.title, filename: body.cover.filename, size: body.cover.data.length }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const small = new FormData()
  small.append('title', 'Dune')
  small.append('cover', new Blob(['x'.repeat(100)]), 'c.png')
  const ok = await fetch(`http://127.0.0.1:${port}/covers`, { method: 'POST', body: small })
  t.same(await ok.json(), { title: 'Dune', filename: 'c.png', size: 100 })
  const big = new FormData()
  big.append('cover', new Blob(['x'.repeat(5000)]), 'c.png')
  const refused = await fetch(`http://127.0.0.1:${port}/covers`, {
    method: 'POST',
    body: big,
    headers: { accept: 'application/xml' },
  })
  t.equal(refused.status, 413)
  t.equal(refused.headers.get('content-type'), 'application/xml; charset=utf-8')
  t.match(await refused.text(), '<code>MULTIPART_LIMIT</code>')
})
