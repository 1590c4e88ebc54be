/**
 * Every route of the app is restwell's, or `ready()` fails: restwell registered inside an
 * encapsulated plugin (the `@fastify/autoload` layout that forgot `fastify-plugin`) reaches none
 * of the routes outside it, whatever the order they were added in.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import autoload from '@fastify/autoload'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { test } from 'tap'
import restwell from '../src/index.js'

const FIXTURE = new URL('./fixtures/autoload/', import.meta.url)
/** The repository's root, where `tsx` (the child's TypeScript loader) is installed. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

interface Failure {
  code?: string
  routes?: readonly string[]
  message?: string
}

async function readyFailure(app: FastifyInstance): Promise<Failure | undefined> {
  return app.ready().then(
    () => undefined,
    (error: unknown) => error as Failure,
  )
}

const OUTSIDE =
  /^restwell: .* are outside the plugin restwell was registered in, which is encapsulated \(not wrapped with `fastify-plugin`.*\. Register restwell at the root, `await app\.register\(restwell\)`, or wrap the plugin that registers it with `fastify-plugin`\.$/

test('restwell in an encapsulated plugin: the routes of every other scope fail ready(), named', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.get('/health', async () => ({ ok: true }))
  await app.register(async (plugins) => {
    await plugins.register(restwell, { rateLimit: false })
    plugins.get('/inside', { config: { auth: false } }, async () => 'reached')
  })
  await app.register(
    async (api) => {
      api.get('/books', async () => [])
      api.get('/crash', async () => {
        throw new Error('secret-leak')
      })
    },
    { prefix: '/api' },
  )
  app.get('/later', async () => 'x')
  const failure = await readyFailure(app)
  t.equal(failure?.code, 'RESTWELL_ROUTES_OUT_OF_REACH')
  t.same(failure?.routes, [
    'GET /health',
    'HEAD /health',
    'GET /api/books',
    'HEAD /api/books',
    'GET /api/crash',
    'HEAD /api/crash',
    'GET /later',
    'HEAD /later',
  ])
  t.match(failure?.message, OUTSIDE)
})

test('restwell wrapped with fastify-plugin reaches every scope: the conventions apply', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fp(async (plugins) => plugins.register(restwell, { rateLimit: false })))
  await app.register(
    async (api) => {
      api.get('/crash', { config: { auth: false } }, async () => {
        throw new Error('secret-leak')
      })
    },
    { prefix: '/api' },
  )
  const crash = await app.inject('/api/crash')
  t.equal(crash.statusCode, 500)
  t.notMatch(crash.body, /secret-leak/)
})

test('@fastify/autoload, restwell imported before Fastify(): a plugins/ file without fastify-plugin fails ready()', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(autoload, { dir: fileURLToPath(new URL('plugins', FIXTURE)) })
  await app.register(autoload, { dir: fileURLToPath(new URL('routes', FIXTURE)) })
  const failure = await readyFailure(app)
  t.same(failure?.routes, [
    'GET /api/books',
    'HEAD /api/books',
    'GET /api/crash',
    'HEAD /api/crash',
  ])
  t.match(failure?.message, OUTSIDE)

  const wrapped = Fastify()
  t.teardown(() => wrapped.close())
  await wrapped.register(autoload, { dir: fileURLToPath(new URL('plugins-wrapped', FIXTURE)) })
  await wrapped.register(autoload, { dir: fileURLToPath(new URL('routes', FIXTURE)) })
  const books = await wrapped.inject('/api/books')
  t.ok(books.headers.etag, 'wrapped with fastify-plugin: the conventions apply')
  t.notMatch((await wrapped.inject('/api/crash')).body, /secret-leak/)
})

/** The child's environment: no V8 coverage of its own (tsx's output would blur this file's). */
const CHILD_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name !== 'NODE_V8_COVERAGE'),
)

/** Runs the autoload app as a process of its own, where restwell is imported after Fastify(). */
function runApp(
  plugins: string,
): Promise<{ code?: string; message?: string; answers?: unknown[] }> {
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
      { cwd: ROOT, env: CHILD_ENV, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', () => resolve(JSON.parse(out)))
  })
}

test('@fastify/autoload, restwell imported after Fastify(): ready() fails all the same', async (t) => {
  const failed = await runApp('plugins')
  t.equal(failed.code, 'RESTWELL_ROUTES_OUT_OF_REACH')
  t.match(failed.message, OUTSIDE)
  t.match(failed.message, /GET \/api\/books, HEAD \/api\/books, GET \/api\/crash/)
  const served = await runApp('plugins-wrapped')
  t.match(served.answers, [
    { url: '/api/books', status: 200, etag: String },
    { url: '/api/crash', status: 500, body: /INTERNAL_SERVER_ERROR/ },
  ])
})
