/** Optional peer dependencies: @fastify/multipart imported when multipart is on, or a clear error. */
import { OptionsError } from '@restwell/errors'
import { test } from 'tap'
import { importMultipart } from '../src/peer.js'

test('importMultipart: the plugin when installed; an OptionsError naming it when not', async (t) => {
  const { default: multipart } = await importMultipart()
  t.type(multipart, 'function', 'installed (a dev dependency here)')

  const missing = Object.assign(new Error("Cannot find package '@fastify/multipart'"), {
    code: 'ERR_MODULE_NOT_FOUND',
  })
  const error = await importMultipart(() => Promise.reject(missing)).catch((e: unknown) => e)
  t.ok(error instanceof OptionsError)
  t.match((error as OptionsError).option, 'multipart')
  t.match((error as Error).message, /npm install @fastify\/multipart/)

  const broken = new SyntaxError('Unexpected token')
  const other = await importMultipart(() => Promise.reject(broken)).catch((e: unknown) => e)
  t.equal(other, broken, 'any other failure is passed on as it is')
})
