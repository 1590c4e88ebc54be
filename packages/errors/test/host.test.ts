import type { OutgoingHttpHeaders, Server } from 'node:http'
import { connect } from 'node:net'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import { type Test, test } from 'tap'
import { hostLines, isValidHost } from '../src/host.js'
import { restwellErrors } from '../src/index.js'

/** RFC 3986 `reg-name [ ":" port ]`, written from the ABNF as a regex, to check the scanner. */
const REG_NAME_AND_PORT = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*(?::[0-9]*)?$/

test('isValidHost: uri-host [ ":" port ] (RFC 3986)', async (t) => {
  for (const valid of [
    '',
    'x',
    'localhost:3000',
    'api.example.com',
    'API.Example.COM:',
    '127.0.0.1:80',
    'a,b',
    "a!$&'()*+;=-._~b",
    'caf%C3%A9.example',
    '[::1]',
    '[::1]:8080',
    '[2001:db8::ffff:1.2.3.4]:1',
    '[v1.x:y]',
    '[VF.a-b]:9',
  ]) {
    t.ok(isValidHost(valid), JSON.stringify(valid))
  }
  for (const invalid of [
    'a b/c',
    'a, b',
    'a/b',
    'a@b',
    'a?b',
    'a#b',
    'user@host',
    'a:b',
    'a:80:80',
    'a%',
    'a%4',
    'a%zz',
    'caf\u00e9',
    'a\tb',
    '[::1',
    '[::1]x',
    '[::1]:x',
    '[]',
    '[1.2.3.4]',
    '[fe80::1%eth0]',
    '[fe80::1%25eth0]',
    '[v.x]',
    '[v1x]',
    '[v1.]',
    '[v1.a/b]',
    '[x1.a]',
    ']',
  ]) {
    t.notOk(isValidHost(invalid), JSON.stringify(invalid))
  }
})

test('isValidHost agrees with the ABNF on any value that is not a literal', async () => {
  const alphabet = fc.constantFrom(...'aZ09-._~!$&\'()*+,;=%:/@?#[] \t"<>\\^`{|}\u00e9Fc'.split(''))
  fc.assert(
    fc.property(fc.string({ unit: alphabet, maxLength: 24 }), (value) => {
      fc.pre(!value.startsWith('['))
      return isValidHost(value) === REG_NAME_AND_PORT.test(value)
    }),
    { numRuns: 2000 },
  )
  fc.assert(
    fc.property(fc.ipV6(), fc.option(fc.nat(65535)), (ip, port) =>
      isValidHost(port === null ? `[${ip}]` : `[${ip}]:${port}`),
    ),
  )
  fc.assert(
    fc.property(fc.domain(), fc.option(fc.nat(65535)), (name, port) =>
      isValidHost(port === null ? name : `${name}:${port}`),
    ),
  )
})

test('hostLines counts Host lines in any case', async (t) => {
  t.equal(hostLines([]), 0)
  t.equal(hostLines(['Host', 'a', 'Accept', '*/*']), 1)
  t.equal(hostLines(['host', 'a', 'HOST', 'b', 'hOsT', 'c', 'Hosts', 'd', 'post', 'e']), 3)
})

async function build(
  t: Test,
): Promise<{ app: FastifyInstance; port: number; handled: () => number }> {
  const app = Fastify<Server>()
  await app.register(restwellErrors)
  let handled = 0
  app.get('/books', async () => {
    handled++
    return { data: [] }
  })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return { app, port, handled: () => handled }
}

/** Writes one request on a fresh connection; resolves with the status and the body. */
function exchange(port: number, head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`GET /books HTTP/1.1\r\n${head}Connection: close\r\n\r\n`),
    )
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      text += chunk
    })
    socket.on('end', () =>
      resolve({
        status: Number(text.split(' ')[1]),
        body: text.slice(text.indexOf('\r\n\r\n') + 4),
      }),
    )
    socket.on('error', reject)
  })
}

test('over a socket: two Host lines are a 400 before anything runs (RFC 9112 §3.2)', async (t) => {
  const { port, handled } = await build(t)
  for (const head of [
    'Host: a\r\nHost: b\r\n',
    'Host: a\r\nHost: a\r\n',
    'host: a\r\nHOST: b\r\n',
    'Host: a\r\nAccept: */*\r\nHost: \r\n',
  ]) {
    const res = await exchange(port, head)
    t.equal(res.status, 400, JSON.stringify(head))
    const { error } = JSON.parse(res.body)
    t.equal(error.code, 'MALFORMED_HEADER')
    t.equal(error.message, 'A request must carry one Host header')
    t.same(error.details, [
      { field: 'headers/host', message: 'more than one field line', code: 'DUPLICATE' },
    ])
  }
  t.equal(handled(), 0, 'no handler ran')
  const one = await exchange(port, 'Host: a\r\n')
  t.equal(one.status, 200)
  // HTTP/1.0 needs no Host, but two are refused there too ("any request message").
  const old = await new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write('GET /books HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n'),
    )
    let text = ''
    socket.on('data', (chunk) => {
      text += chunk
    })
    socket.on('end', () => resolve(text))
  })
  t.match(old, /^HTTP\/1\.1 400 /)
})

test('over a socket: an invalid Host value is a 400', async (t) => {
  const { port, handled } = await build(t)
  for (const host of ['a b/c', 'a, b', 'user@a', '[::1', 'a:port']) {
    const res = await exchange(port, `Host: ${host}\r\n`)
    t.equal(res.status, 400, host)
    t.equal(JSON.parse(res.body).error.details[0].code, 'MALFORMED_HEADER')
  }
  for (const host of ['', 'localhost:3000', '[::1]:80', '127.0.0.1']) {
    t.equal((await exchange(port, `Host: ${host}\r\n`)).status, 200, host)
  }
  t.equal(handled(), 4)
})

test('inject: an invalid Host value is a 400 in the error form', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors, { format: 'problem' })
  app.get('/books', async () => ({ data: [] }))
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'GET', url: '/books', headers: { host: 'a b/c' } })
  t.equal(res.statusCode, 400)
  t.equal(res.headers['cache-control'], 'no-store')
  const body = res.json()
  t.equal(body.code, 'MALFORMED_HEADER')
  t.equal(body.detail, 'The Host header is not a valid host')
  t.same(body.details, [
    {
      field: 'headers/host',
      message: 'must be uri-host [ ":" port ] (RFC 3986)',
      code: 'MALFORMED_HEADER',
    },
  ])
  const notFound = await app.inject({ method: 'GET', url: '/nope', headers: { host: 'a/b' } })
  t.equal(notFound.statusCode, 400, 'refused before routing decides anything')
  // inject, like Node, keeps the first in `headers` and both in `rawHeaders`.
  const list: OutgoingHttpHeaders = { Host: ['a', 'b'] }
  const twice = await app.inject({ method: 'GET', url: '/books', headers: list })
  t.equal(twice.statusCode, 400, 'a Host set as a list is two lines')
  t.equal(twice.json().details[0].code, 'DUPLICATE')
  const ok = await app.inject({
    method: 'GET',
    url: '/books',
    headers: { host: 'example.com:8080' },
  })
  t.equal(ok.statusCode, 200)
})
