import net from 'node:net'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import { test } from 'tap'
import { CLOSING_RETRY_AFTER, restwellErrors } from '../src/plugin.js'

/**
 * A rolling deploy: a request arrives on a kept-alive connection after `app.close()` began.
 * With `return503OnClosing: false` it reaches the plugin's hook, which answers the 503.
 */
test('a request arriving while the app closes: 503 in the error form, Retry-After, Connection: close', async (t) => {
  const app = Fastify({ return503OnClosing: false })
  await app.register(restwellErrors)
  let started!: () => void
  const running = new Promise<void>((resolve) => {
    started = resolve
  })
  let release!: () => void
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  let reached = 0
  app.get('/slow', async () => {
    started()
    await held
    return { ok: true }
  })
  app.get('/books', async () => {
    reached++
    return []
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const socket = net.connect(port, '127.0.0.1')
  let received = ''
  const refused = new Promise<void>((resolve) => {
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1')
      if (received.includes('SERVICE_UNAVAILABLE')) resolve()
    })
  })
  socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n')
  await running
  const closed = app.close()
  socket.write('GET /books HTTP/1.1\r\nHost: x\r\n\r\n')
  // The slow answer goes first (HTTP/1.1 answers in order): let it finish.
  setImmediate(release)
  await refused
  socket.destroy()
  await closed
  const answers = received.split('HTTP/1.1 ').slice(1)
  t.equal(answers.length, 2)
  t.match(answers[0], /^200 /)
  const [head, body] = answers[1]!.split('\r\n\r\n') as [string, string]
  t.match(head, /^503 /)
  t.match(head, new RegExp(`\\r\\nretry-after: ${CLOSING_RETRY_AFTER}\\r\\n`, 'i'))
  t.match(head, /\r\nconnection: close\r\n/i)
  t.match(head, /\r\ncache-control: no-store\r\n/i)
  t.match(head, /\r\nx-request-id: /i)
  t.equal(JSON.parse(body).error.code, 'SERVICE_UNAVAILABLE')
  t.equal(reached, 0, 'the route never ran')
})
