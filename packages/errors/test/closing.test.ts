import Fastify from 'fastify'
import { test } from 'tap'
import { answersWhileClosing } from '../../../test/helpers/closing.js'
import { CLOSING_RETRY_AFTER, restwellErrors } from '../src/plugin.js'

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
