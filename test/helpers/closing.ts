/**
 * A rolling deploy, over a socket: a request arrives on a kept-alive connection after
 * `app.close()` began (the app made with `return503OnClosing: false`, so it reaches the hooks).
 * Adds a `/slow` route that holds the connection's first request while the app starts closing,
 * listens, sends `request` (raw HTTP/1.1) second, and resolves with the two raw answers.
 */
import { type AddressInfo, connect } from 'node:net'
import type { FastifyInstance } from 'fastify'

export async function answersWhileClosing(
  app: FastifyInstance,
  request: string,
): Promise<string[]> {
  const { running, release } = holdSlowRoute(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const socket = connect((app.server.address() as AddressInfo).port, '127.0.0.1')
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
  socket.write(request)
  // The slow answer goes first (HTTP/1.1 answers in order): let it finish.
  setImmediate(release)
  await refused
  socket.destroy()
  await closed
  return received.split('HTTP/1.1 ').slice(1)
}

/**
 * Adds `GET /slow`, which answers `{ ok: true }` only once `release()` is called: `running`
 * settles when a request has reached its handler (the request an app's close waits for).
 */
export function holdSlowRoute(app: {
  get(path: string, handler: () => Promise<unknown>): unknown
}): {
  running: Promise<void>
  release: () => void
} {
  let started!: () => void
  const running = new Promise<void>((resolve) => {
    started = resolve
  })
  let release!: () => void
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  app.get('/slow', async () => {
    started()
    await held
    return { ok: true }
  })
  return { running, release }
}
