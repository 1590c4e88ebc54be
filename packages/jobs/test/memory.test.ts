import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { httpErrors, restwellErrors } from '@restwell/errors'
import { mediaTypeOf } from '@restwell/core'
import { MEDIA_TYPE } from '@restwell/core/internal'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { type JobContext, type JobsOptions, restwellJobs } from '../src/index.js'
import { PATIENCE_MS, until } from '../../../test/helpers/patience.js'

/** A promise with its resolve function, to hold a job handler until the test lets it go. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

async function build(
  options: JobsOptions = {},
  setup?: (app: FastifyInstance) => void,
): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellJobs, { pollMs: 20, ...options })
  setup?.(app)
  app.post('/exports', async (request, reply) =>
    reply.accepted(await app.jobs.enqueue('export', request.body)),
  )
  await app.ready()
  return app
}

const statusOf = async (app: FastifyInstance, location: string): Promise<string> => {
  const res = await app.inject({ url: location })
  return res.statusCode === 200 ? res.json().status : String(res.statusCode)
}

test('202 with { jobId, status, estimatedTime } and Location; 200 while queued', async (t) => {
  const app = await build({ worker: false }, (app) => {
    app.jobs.define('export', async () => 'done', { estimatedTime: 30 })
  })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/exports', payload: { format: 'csv' } })
  t.equal(res.statusCode, 202)
  const body = res.json()
  t.same(Object.keys(body), ['jobId', 'status', 'estimatedTime'])
  t.match(body, { status: 'queued', estimatedTime: 'PT30S' })
  t.match(body.jobId, /^[0-9a-f-]{36}$/)
  t.equal(res.headers.location, `/jobs/${body.jobId}`)
  const status = await app.inject({ url: res.headers.location as string })
  t.equal(status.statusCode, 200)
  t.equal(status.headers['cache-control'], 'no-store')
  const job = status.json()
  t.same(Object.keys(job), ['jobId', 'status', 'estimatedTime', 'createdAt', 'updatedAt'])
  t.match(job, { jobId: body.jobId, status: 'queued', estimatedTime: 'PT30S' })
  t.equal(new Date(job.createdAt).toISOString(), job.createdAt)
  t.same(await app.jobs.get(body.jobId), job)
  t.equal(await app.jobs.get('not-a-uuid'), undefined)
  t.equal(await app.jobs.get('00000000-0000-0000-0000-000000000000'), undefined)
})

test('running with progress, then 303 to the result served by the plugin', async (t) => {
  const release = gate()
  const started = gate<JobContext>()
  const app = await build({}, (app) => {
    app.jobs.define<{ format: string }>('export', async (payload, ctx) => {
      await ctx.progress(40)
      started.open(ctx)
      await release.promise
      return { rows: 3, format: payload.format }
    })
  })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/exports', payload: { format: 'csv' } })
  const location = res.headers.location as string
  const ctx = await started.promise
  t.equal(ctx.attempt, 1)
  t.equal(ctx.jobId, res.json().jobId)
  await t.rejects(ctx.progress(101), RangeError)
  await t.rejects(ctx.progress(Number.NaN), RangeError)
  const running = await app.inject({ url: location })
  t.match(running.json(), { status: 'running', progress: 40 })
  release.open()
  await until(async () => (await statusOf(app, location)) === '303')
  const done = await app.inject({ url: location })
  t.equal(done.statusCode, 303)
  t.equal(done.headers.location, `${location}/result`)
  t.match(done.json(), { status: 'succeeded' })
  const result = await app.inject({ url: `${location}/result` })
  t.equal(result.statusCode, 200)
  t.match(result.headers['content-type'], /^application\/json/)
  t.same(result.json(), { rows: 3, format: 'csv' })
})

test('a handler may name where the result lives: 303 there', async (t) => {
  const app = await build({}, (app) => {
    app.jobs.define('export', async () => ({ location: '/v1/exports/7' }))
    app.jobs.define('nothing', async () => undefined)
    app.jobs.define('located-object', async () => ({ location: '/x', more: true }))
  })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/exports', payload: {} })
  const location = res.headers.location as string
  await until(async () => (await statusOf(app, location)) === '303')
  t.equal((await app.inject({ url: location })).headers.location, '/v1/exports/7')
  const result = await app.inject({ url: `${location}/result` })
  t.equal(result.statusCode, 303)
  t.equal(result.headers.location, '/v1/exports/7')

  const nothing = await app.jobs.enqueue('nothing', undefined)
  await until(async () => (await statusOf(app, app.jobs.statusUrl(nothing.jobId))) === '303')
  t.equal((await app.inject({ url: `/jobs/${nothing.jobId}/result` })).body, 'null')
  const obj = await app.jobs.enqueue('located-object', 1)
  await until(async () => (await statusOf(app, app.jobs.statusUrl(obj.jobId))) === '303')
  t.same((await app.inject({ url: `/jobs/${obj.jobId}/result` })).json(), {
    location: '/x',
    more: true,
  })
})

test('a location that is not a valid header value is encoded, or fails the job; never a 500 later', async (t) => {
  const lines: string[] = []
  const app = Fastify({
    logger: { level: 'error', stream: { write: (line: string) => lines.push(line) } },
  })
  await app.register(restwellErrors)
  await app.register(restwellJobs, { pollMs: 20 })
  app.jobs.define<{ location: string }>('work', async (payload) => ({
    location: payload.location,
  }))
  await app.ready()
  t.teardown(() => app.close())
  const encoded: [string, string][] = [
    ['/files/отчёт.csv', '/files/%D0%BE%D1%82%D1%87%D1%91%D1%82.csv'],
    ['/files/résumé.csv', '/files/r%C3%A9sum%C3%A9.csv'],
    ['/files/a b.csv', '/files/a%20b.csv'],
    ['/files/a%20b.csv', '/files/a%20b.csv'],
  ]
  for (const [given, sent] of encoded) {
    const job = await app.jobs.enqueue('work', { location: given })
    const url = app.jobs.statusUrl(job.jobId)
    await until(async () => (await app.jobs.get(job.jobId))?.status === 'succeeded')
    const status = await app.inject({ url })
    t.equal(status.statusCode, 303, given)
    t.equal(status.headers.location, sent, `${given}: Location`)
    const result = await app.inject({ url: `${url}/result` })
    t.equal(result.statusCode, 303, `${given}: result`)
    t.equal(result.headers.location, sent, `${given}: result Location`)
  }
  const job = await app.jobs.enqueue('work', { location: '/files/x\r\nSet-Cookie: a=b' })
  const url = app.jobs.statusUrl(job.jobId)
  await until(async () => (await app.jobs.get(job.jobId))?.status === 'failed')
  const status = await app.inject({ url })
  t.equal(status.statusCode, 200)
  t.notOk(status.headers['set-cookie'])
  t.same(status.json().error, {
    statusCode: 500,
    code: 'INTERNAL_SERVER_ERROR',
    message: "The location of the job's result is not a valid URI reference",
    details: [],
  })
  const result = await app.inject({ url: `${url}/result` })
  t.equal(result.statusCode, 409)
  t.equal(result.json().error.code, 'JOB_FAILED')
  t.match(lines.join(''), /Set-Cookie: a=b.*cannot be a URI-reference/, 'the reason is logged')
})

test('a failed job: 200 on its status resource with the public error in the body', async (t) => {
  const app = await build({}, (app) => {
    app.jobs.define('export', async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2')
    })
    app.jobs.define('invalid', async () => {
      throw httpErrors.unprocessableEntity('The export has too many rows', {
        details: [{ field: 'body/rows', message: 'at most 1000', code: 'MAXIMUM' }],
      })
    })
    app.jobs.define('masked', async () => {
      throw httpErrors.badGateway('upstream 10.0.0.9 broke')
    })
  })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/exports', payload: {} })
  const location = res.headers.location as string
  await until(async () => (await statusOf(app, location)) === 'failed')
  const failed = await app.inject({ url: location })
  t.equal(failed.statusCode, 200)
  t.equal(failed.headers['cache-control'], 'no-store')
  t.same(Object.keys(failed.json()), [
    'jobId',
    'status',
    'estimatedTime',
    'createdAt',
    'updatedAt',
    'error',
  ])
  t.same(failed.json().error, {
    statusCode: 500,
    code: 'INTERNAL_SERVER_ERROR',
    message: 'The job failed',
    details: [],
  })
  t.notMatch(failed.body, /hunter2|ECONNREFUSED|at /)
  t.same(await app.jobs.get(res.json().jobId), failed.json(), 'app.jobs.get shows the error too')
  const result = await app.inject({ url: `${location}/result` })
  t.equal(result.statusCode, 409)
  t.equal(result.headers.location, location)
  t.equal(result.json().error.code, 'JOB_FAILED')
  t.equal(result.json().error.message, `Job ${res.json().jobId} failed: The job failed`)

  const invalid = await app.jobs.enqueue('invalid', {})
  const url = app.jobs.statusUrl(invalid.jobId)
  await until(async () => (await statusOf(app, url)) === 'failed')
  t.same((await app.inject({ url })).json().error, {
    statusCode: 422,
    code: 'UNPROCESSABLE_ENTITY',
    message: 'The export has too many rows',
    details: [{ field: 'body/rows', message: 'at most 1000', code: 'MAXIMUM' }],
  })
  const invalidResult = (await app.inject({ url: `${url}/result` })).json()
  t.equal(invalidResult.error.message, `Job ${invalid.jobId} failed: The export has too many rows`)
  t.same(invalidResult.error.details, [
    { field: 'body/rows', message: 'at most 1000', code: 'MAXIMUM' },
  ])

  const masked = await app.jobs.enqueue('masked', {})
  const maskedUrl = app.jobs.statusUrl(masked.jobId)
  await until(async () => (await statusOf(app, maskedUrl)) === 'failed')
  const maskedRes = await app.inject({ url: maskedUrl })
  t.notMatch(maskedRes.body, /10\.0\.0\.9/)
  t.equal(maskedRes.json().error.message, 'The job failed')
})

test('a job failing with 401/403/404/405/429/503 never lends that status to its status resource', async (t) => {
  const failures = {
    unauthorized: httpErrors.unauthorized('Upstream credentials expired', {
      headers: { 'www-authenticate': 'Bearer' },
    }),
    forbidden: httpErrors.forbidden('Upstream refused the export'),
    'not-found': httpErrors.notFound('Upstream record 17 not found', { code: 'UPSTREAM_MISSING' }),
    'not-allowed': httpErrors.methodNotAllowed('Upstream refused the method', {
      headers: { allow: 'GET' },
    }),
    'rate-limited': httpErrors.tooManyRequests('Upstream rate limit', {
      headers: { 'retry-after': '60' },
    }),
    unavailable: httpErrors.serviceUnavailable('Upstream down', {
      headers: { 'retry-after': '30' },
      expose: true,
    }),
  }
  const app = await build({}, (app) => {
    app.jobs.define('export', async () => 1)
    for (const [name, error] of Object.entries(failures)) {
      app.jobs.define(name, async () => {
        throw error
      })
    }
  })
  t.teardown(() => app.close())
  for (const [name, error] of Object.entries(failures)) {
    const job = await app.jobs.enqueue(name, {})
    const url = app.jobs.statusUrl(job.jobId)
    await until(async () => (await app.jobs.get(job.jobId))?.status === 'failed')
    const res = await app.inject({ url })
    t.equal(res.statusCode, 200, `${name}: the GET of the status resource succeeded`)
    for (const header of ['www-authenticate', 'allow', 'retry-after']) {
      t.equal(res.headers[header], undefined, `${name}: no ${header}`)
    }
    t.match(res.json(), {
      jobId: job.jobId,
      status: 'failed',
      error: { statusCode: error.statusCode, code: error.code, message: error.message },
    })
    const result = await app.inject({ url: `${url}/result` })
    t.equal(result.statusCode, 409, `${name}: the result resource conflicts with the job's state`)
    t.equal(result.headers.location, url)
    for (const header of ['www-authenticate', 'allow', 'retry-after']) {
      t.equal(result.headers[header], undefined, `${name}: no ${header} on the result`)
    }
    t.equal(result.json().error.code, 'JOB_FAILED')
  }
  const unknown = await app.inject({ url: '/jobs/00000000-0000-4000-8000-000000000000' })
  t.equal(unknown.statusCode, 404, 'only an unknown job is 404')
  t.equal(unknown.json().error.code, 'JOB_NOT_FOUND')
})

test('unknown jobs: 404; a result not ready yet: 409 pointing at the status', async (t) => {
  const app = await build({ worker: false }, (app) => {
    app.jobs.define('export', async () => 1)
  })
  t.teardown(() => app.close())
  const unknown = await app.inject({ url: '/jobs/00000000-0000-0000-0000-000000000000' })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'JOB_NOT_FOUND')
  const garbage = await app.inject({ url: `/jobs/${'x'.repeat(90)}` })
  t.equal(garbage.statusCode, 404)
  t.match(garbage.json().error.message, /\.\.\.$/)
  t.equal(
    (await app.inject({ url: `/jobs/${'x'.repeat(101)}` })).statusCode,
    414,
    "Fastify's maxParamLength",
  )
  const job = await app.jobs.enqueue('export', {})
  const early = await app.inject({ url: `/jobs/${job.jobId}/result` })
  t.equal(early.statusCode, 409)
  t.equal(early.json().error.code, 'JOB_NOT_FINISHED')
  t.equal(early.headers.location, `/jobs/${job.jobId}`)
})

test('bounded concurrency per instance', async (t) => {
  let active = 0
  let peak = 0
  const app = await build({ concurrency: 2 }, (app) => {
    app.jobs.define('export', async () => {
      active++
      peak = Math.max(peak, active)
      await new Promise((r) => setTimeout(r, 30))
      active--
      return 'ok'
    })
  })
  t.teardown(() => app.close())
  const jobs = await Promise.all([1, 2, 3, 4, 5].map((n) => app.jobs.enqueue('export', n)))
  await until(async () => {
    const states = await Promise.all(jobs.map((j) => app.jobs.get(j.jobId)))
    return states.every((s) => s?.status === 'succeeded')
  })
  t.equal(peak, 2)
})

test('define and enqueue refuse mistakes', async (t) => {
  const app = await build({ estimatedTime: 'PT2M' }, (app) => {
    app.jobs.define('export', async () => 1)
    t.throws(() => app.jobs.define('export', async () => 2), /already defined/)
    t.throws(() => app.jobs.define('bad name', async () => 2), /job name/)
    t.throws(() => app.jobs.define('x', 'nope' as never), /must be a function/)
    t.throws(() => app.jobs.define('y', async () => 2, { estimatedTime: 'soon' }), /ISO 8601/)
    t.throws(() => app.jobs.define('z', async () => 2, { estimatedTime: -1 }), /non-negative/)
    app.jobs.define('timed', async () => 2, { estimatedTime: 'P1DT2H' })
  })
  t.teardown(() => app.close())
  await t.rejects(app.jobs.enqueue('missing', {}), /no job "missing" is defined/)
  t.equal((await app.jobs.enqueue('export', {})).estimatedTime, 'PT2M')
  t.equal((await app.jobs.enqueue('timed', {})).estimatedTime, 'P1DT2H')
})

test('options are validated', async (t) => {
  const bad: [JobsOptions, RegExp][] = [
    [{ basePath: 'jobs' }, /option "basePath"/],
    [{ basePath: '/Jobs' }, /option "basePath"/],
    [{ store: 'disk' as never }, /option "store"/],
    [{ store: { redis: 'http://x' } }, /option "store/],
    [{ concurrency: 0 }, /option "concurrency"/],
    [{ estimatedTime: 'later' }, /option "estimatedTime" is invalid/],
  ]
  for (const [options, message] of bad) {
    await t.rejects(async () => Fastify().register(restwellJobs, options), message)
  }
})

test('under a prefix and a custom basePath, with route config passed through', async (t) => {
  const app = Fastify()
  await app.register(
    async (v1) => {
      await v1.register(restwellJobs, { basePath: '/operations', config: { tag: 'jobs' } })
      v1.jobs.define('export', async () => 1)
      v1.post('/exports', async (_request, reply) =>
        reply.accepted(await v1.jobs.enqueue('export', {})),
      )
      v1.addHook('onRoute', () => undefined)
    },
    { prefix: '/v1' },
  )
  await app.ready()
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/v1/exports' })
  t.match(res.headers.location, /^\/v1\/operations\/[0-9a-f-]{36}$/)
  t.equal((await app.inject({ url: res.headers.location as string })).statusCode < 400, true)
})

test('the result route opts out of the naming rules; the status route and user config do not', async (t) => {
  // @restwell/naming is not a dependency of this package: the route config it reads
  // (`config.naming === false` skips a route) is checked with an onRoute hook registered first,
  // as @restwell/naming is by the umbrella.
  const app = Fastify()
  const configs = new Map<string, Record<string, unknown>>()
  app.addHook('onRoute', (route) => {
    configs.set(route.url, { ...(route.config as Record<string, unknown>) })
  })
  await app.register(restwellJobs, { config: { auth: { scopes: ['jobs:read'] } } })
  await app.ready()
  t.teardown(() => app.close())
  t.match(configs.get('/jobs/:id/result'), { naming: false, auth: { scopes: ['jobs:read'] } })
  t.match(configs.get('/jobs/:id'), { auth: { scopes: ['jobs:read'] } })
  t.equal(configs.get('/jobs/:id')?.naming, undefined, "basePath is the user's name: checked")

  const off = Fastify()
  const offConfigs = new Map<string, unknown>()
  off.addHook('onRoute', (route) => {
    offConfigs.set(route.url, (route.config as Record<string, unknown>).naming)
  })
  await off.register(restwellJobs, { basePath: '/operation', config: { naming: false } })
  await off.ready()
  t.teardown(() => off.close())
  t.equal(offConfigs.get('/operation/:id'), false, 'the user may opt the status route out')
  t.equal(offConfigs.get('/operation/:id/result'), false)
})

test('finished jobs expire after ttl', async (t) => {
  const app = await build({ ttl: 1 }, (app) => {
    app.jobs.define('export', async () => 1)
  })
  t.teardown(() => app.close())
  const job = await app.jobs.enqueue('export', {})
  await until(async () => (await app.jobs.get(job.jobId))?.status === 'succeeded')
  await until(async () => (await app.jobs.get(job.jobId)) === undefined, 'the job expires')
  t.pass('gone')
})

test('close aborts running jobs and waits for them', async (t) => {
  const started = gate()
  let aborted = false
  const app = await build({ closeTimeoutMs: 1000 }, (app) => {
    app.jobs.define('export', async (_payload, ctx) => {
      started.open()
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      aborted = true
      return 'stopped'
    })
  })
  await app.jobs.enqueue('export', {})
  await started.promise
  await app.close()
  t.ok(aborted)
})

test('the result resource is negotiated like any route; JSON without negotiation', async (t) => {
  // @restwell/negotiation is not a dependency of this package. A stand-in with its contract: it
  // picks the type in onRequest (request[MEDIA_TYPE]) and serializes a payload in another
  // representation in a preSerialization hook, which Fastify runs for values, not for text.
  const negotiated = (app: FastifyInstance): void => {
    app.addHook('onRequest', async (request) => {
      if (request.headers.accept === 'application/xml')
        (request as { [MEDIA_TYPE]?: string })[MEDIA_TYPE] = 'application/xml'
    })
    app.addHook('preSerialization', async (request, reply, payload) => {
      if (mediaTypeOf(request) !== 'application/xml') return payload
      reply.serializer((body) => body as string).type('application/xml; charset=utf-8')
      return `<response>${JSON.stringify(payload)}</response>`
    })
  }
  const results: Record<string, unknown> = {
    object: { rows: 3, title: 'Q3' },
    array: [1, 'two'],
    number: 42,
    nothing: undefined,
    text: 'done',
  }
  const define = (app: FastifyInstance): void => {
    for (const [name, value] of Object.entries(results)) app.jobs.define(name, async () => value)
  }
  const app = Fastify()
  await app.register(restwellErrors)
  negotiated(app)
  await app.register(restwellJobs, { pollMs: 20 })
  define(app)
  await app.ready()
  const plain = await build({}, define)
  t.teardown(async () => {
    await app.close()
    await plain.close()
  })
  const finished = async (on: FastifyInstance, name: string): Promise<string> => {
    const job = await on.jobs.enqueue(name, {})
    await until(async () => (await on.jobs.get(job.jobId))?.status === 'succeeded')
    return `/jobs/${job.jobId}/result`
  }
  const xml = { accept: 'application/xml' }
  const json = 'application/json; charset=utf-8'
  for (const [name, body] of [
    ['object', '{"rows":3,"title":"Q3"}'],
    ['array', '[1,"two"]'],
    ['number', '42'],
    ['nothing', 'null'],
  ]) {
    const url = await finished(app, name as string)
    const res = await app.inject({ url, headers: xml })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], 'application/xml; charset=utf-8', `${name}: negotiated`)
    t.equal(res.body, `<response>${body}</response>`)
    const asJson = await app.inject({ url })
    t.equal(asJson.headers['content-type'], json, `${name}: JSON by default`)
    t.equal(asJson.body, body)
    const alone = await plain.inject({ url: await finished(plain, name as string), headers: xml })
    t.equal(alone.headers['content-type'], json, `${name}: JSON without negotiation`)
    t.equal(alone.body, body)
  }
  // A JSON string stays JSON text: Fastify sends text past the serializers (README, Decisions).
  const text = await app.inject({ url: await finished(app, 'text'), headers: xml })
  t.equal(text.statusCode, 200)
  t.equal(text.headers['content-type'], json)
  t.equal(text.body, '"done"')
  const plainText = await plain.inject({ url: await finished(plain, 'text') })
  t.equal(plainText.headers['content-type'], json)
  t.equal(plainText.body, '"done"')
})

test('the memory backend never loads bullmq or ioredis', async (t) => {
  // The test's own node options (its TypeScript loader, coverage): the fixture's coverage of the
  // sources is the same as the tests'.
  const child = spawnSync(process.execPath, [...process.execArgv, 'test/fixtures/memory-only.ts'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    encoding: 'utf8',
    timeout: PATIENCE_MS,
  })
  t.equal(child.stdout.trim(), '0', child.stderr)
})
