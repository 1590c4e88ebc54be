import { connect } from 'node:http2'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import { test } from 'tap'
import { answersWhileClosing, holdSlowRoute } from '../../../test/helpers/closing.js'
import { http2Request } from '../../../test/helpers/http2.js'
import { restwellErrors } from '../src/plugin.js'
import { CLOSING_RETRY_AFTER } from '../src/steps.js'

/**
 * A rolling deploy: a request arrives on a kept-alive connection after `app.close()` began.
 * With `return503OnClosing: false` it reaches the plugin's hook, which answers the 503.
 */
test('a request arriving while the app closes: 503 in the error form, Retry-After, Connection: close', async (t) => {
  const app = Fastify({ return503OnClosing: false })
  await app.register(restwellErrors)
  let reached = 0
  app.get('/books', async () => {
    reached++
    return []
  })
  const answers = await answersWhileClosing(app, 'GET /books HTTP/1.1\r\nHost: x\r\n\r\n')
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

test('HTTP/2: the 503 while closing has no Connection header (RFC 9113 §8.2.2); the session gets a GOAWAY', async (t) => {
  const app = Fastify({ http2: true, return503OnClosing: false })
  await app.register(restwellErrors)
  const { running, release } = holdSlowRoute(app)
  app.get('/books', async () => [])
  await app.listen({ port: 0, host: '127.0.0.1' })
  const warnings: string[] = []
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
  process.on('warning', onWarning)
  t.teardown(() => process.off('warning', onWarning))
  const session = connect(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`)
  const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()))
  const slow = http2Request(session, { ':path': '/slow' })
  await running
  const closed = app.close()
  const refused = await http2Request(session, { ':path': '/books' })
  t.equal(refused.status, 503)
  t.equal(refused.headers['retry-after'], String(CLOSING_RETRY_AFTER))
  t.equal(refused.headers.connection, undefined)
  t.equal(JSON.parse(refused.body).error.code, 'SERVICE_UNAVAILABLE')
  await goaway
  release()
  t.equal((await slow).status, 200, 'the stream under way finishes')
  session.close()
  await closed
  // A warning is emitted on the next tick: let it land before looking.
  await new Promise((resolve) => setImmediate(resolve))
  t.same(warnings, [], 'Node dropped no connection header')
})
