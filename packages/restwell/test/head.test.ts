import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import { test } from 'tap'
import restwell from '../src/index.js'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  bytes: number
}

/** One request over a real socket: what a HEAD's Content-Length claims is read off the wire. */
function send(port: number, method: string, path: string, headers: Record<string, string>) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }))
    })
    req.on('error', reject)
    req.end()
  })
}

const SAME = [
  'content-length',
  'content-encoding',
  'etag',
  'accept-ranges',
  'vary',
  'cache-control',
]

test('the umbrella answers HEAD like GET, compressed or not, conditional on or off', async (t) => {
  const app = Fastify()
  await app.register(restwell, { rateLimit: false })
  const body = { data: Array.from({ length: 40 }, (_, id) => ({ id, title: `Book ${id}` })) }
  app.get('/books', { config: { auth: false } }, async () => body)
  app.get('/plain', { config: { auth: false, conditional: false } }, async () => body)
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as AddressInfo

  for (const path of ['/books', '/plain']) {
    for (const encoding of ['gzip', 'identity']) {
      const headers = { 'accept-encoding': encoding }
      const get = await send(port, 'GET', path, headers)
      const head = await send(port, 'HEAD', path, headers)
      t.equal(get.status, 200)
      t.equal(head.status, 200)
      for (const name of SAME) {
        t.same(head.headers[name], get.headers[name], `${path} ${encoding}: HEAD ${name} = GET's`)
      }
      t.equal(Number(get.headers['content-length']), get.bytes, 'the GET sent what it claimed')
      t.equal(head.bytes, 0)
      if (encoding === 'gzip') t.equal(get.headers['content-encoding'], 'gzip')
      if (path === '/books') {
        const revalidated = await send(port, 'HEAD', path, {
          ...headers,
          'if-none-match': String(get.headers.etag),
        })
        t.equal(revalidated.status, 304, `${path} ${encoding}: HEAD revalidates like GET`)
        t.equal(revalidated.headers['content-length'], undefined)
        t.equal(revalidated.headers.etag, get.headers.etag)
      }
    }
  }
})

test('a HEAD of a 204 has no Content-Length, as its GET (RFC 9110 §8.6)', async (t) => {
  const app = Fastify()
  await app.register(restwell, { rateLimit: false })
  app.get('/empty', { config: { auth: false } }, async (_request, reply) => reply.code(204).send())
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as AddressInfo
  for (const method of ['GET', 'HEAD']) {
    const answer = await send(port, method, '/empty', {})
    t.equal(answer.status, 204, method)
    t.equal(answer.headers['content-length'], undefined, method)
  }
})
