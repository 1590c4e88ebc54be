/**
 * The `@fastify/autoload` layout: `plugins/restwell.js` registers restwell, `routes/api/` holds
 * the routes. Without `fastify-plugin` around the plugin file, restwell reaches none of them and
 * `ready()` fails, whether restwell is imported before `Fastify()` runs (here) or after (a
 * process of its own, `fixtures/autoload/app.js`, as autoload imports `plugins/*.js`).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import autoload from '@fastify/autoload'
import Fastify, { type FastifyInstance } from 'fastify'
import restwell from 'restwell'
import { test } from 'tap'

const FIXTURE = new URL('./fixtures/autoload/', import.meta.url)
/** The repository's root, where `tsx` (the child's TypeScript loader) is installed. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const OUTSIDE =
  /^restwell: GET \/api\/books, HEAD \/api\/books, GET \/api\/crash, HEAD \/api\/crash are outside the plugin restwell was registered in, which is encapsulated .*wrap the plugin that registers it with `fastify-plugin`\.$/

async function autoloaded(plugins: string): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(autoload, { dir: fileURLToPath(new URL(plugins, FIXTURE)) })
  await app.register(autoload, { dir: fileURLToPath(new URL('routes', FIXTURE)) })
  return app
}

test('restwell imported before Fastify(): a plugins/ file without fastify-plugin fails ready()', async (t) => {
  t.ok(restwell, 'imported by this file before any instance is made')
  const app = await autoloaded('plugins')
  t.teardown(() => app.close())
  const failure = await app.ready().then(
    () => undefined,
    (error: unknown) => error as { code: string; routes: string[]; message: string },
  )
  t.equal(failure?.code, 'RESTWELL_ROUTES_OUT_OF_REACH')
  t.same(failure?.routes, [
    'GET /api/books',
    'HEAD /api/books',
    'GET /api/crash',
    'HEAD /api/crash',
  ])
  t.match(failure?.message, OUTSIDE)

  const wrapped = await autoloaded('plugins-wrapped')
  t.teardown(() => wrapped.close())
  const books = await wrapped.inject('/api/books')
  t.equal(books.statusCode, 200)
  t.ok(books.headers.etag, 'wrapped with fastify-plugin: the conventions apply')
  const crash = await wrapped.inject('/api/crash')
  t.equal(crash.statusCode, 500)
  t.notMatch(crash.body, /secret-leak/, 'the 500 is masked')
})

interface Outcome {
  code?: string
  message?: string
  answers?: unknown[]
}

/** Runs the autoload app as a process of its own, where restwell is imported after Fastify(). */
function runApp(plugins: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=restwell-source',
        '--import',
        'tsx',
        fileURLToPath(new URL('app.js', FIXTURE)),
        plugins,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', () => resolve(JSON.parse(out) as Outcome))
  })
}

test('restwell imported after Fastify(): ready() fails all the same', async (t) => {
  const failed = await runApp('plugins')
  t.equal(failed.code, 'RESTWELL_ROUTES_OUT_OF_REACH')
  t.match(failed.message, OUTSIDE)
  const served = await runApp('plugins-wrapped')
  t.match(served.answers, [
    { url: '/api/books', status: 200, etag: String },
    { url: '/api/crash', status: 500, body: /INTERNAL_SERVER_ERROR/ },
  ])
  t.notMatch(JSON.stringify(served.answers), /secret-leak/)
})
