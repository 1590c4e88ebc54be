/** The bookshelf API: a library catalogue on PostgreSQL, built with Fastify + restwell. */
import { timingSafeEqual } from 'node:crypto'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { Queue } from 'bullmq'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import restwell, {
  clientErrorHandler,
  frameworkErrors,
  genReqId,
  restwellOpenapi,
  versioned,
} from 'restwell'
import { ambientTransactions } from './batch-transaction.js'
import type { Database } from './db.js'
import { DASHBOARD_PATH, dashboardRoutes } from './dashboard.js'
import { guarded } from './db-errors.js'
import { canonicalIntegerParams } from './ids.js'
import { JOB_OPTIONS, JOB_QUEUE } from './export-job.js'
import { authorsRoutes } from './routes/authors.js'
import { booksRoutes, WRITE } from './routes/books.js'
import { coversRoutes } from './routes/covers.js'
import { defineExportJob, exportsRoutes } from './routes/exports.js'
import { v2Routes } from './routes/v2.js'

export interface Tokens {
  /** Bearer token with the `read` scope. */
  read: string
  /** Bearer token with the `read` and `write` scopes. */
  write: string
}

export interface AppOptions {
  db: Database
  tokens: Tokens
  /** Origins allowed by CORS: `'*'` (default) or a list. */
  corsOrigins?: '*' | string[]
  /** Requests per client per minute. [600] */
  rateLimitMax?: number
  logger?: boolean
  /** Event-loop delay (ms) above which requests get 503; 0 turns the check off. [1000] */
  maxEventLoopDelay?: number
  /** How often the database is pinged (ms); a failed ping makes every request 503. [5000] */
  healthCheckInterval?: number
  /** Close the database when the app closes. [true] */
  closeDatabase?: boolean
  /**
   * Redis for the state instances share: rate-limit counters, idempotency keys and the job
   * queue. Without it they live in this process (one instance only). [none: in memory]
   */
  redis?: Redis
  /** Close `redis` when the app closes (after the job worker has stopped). [true] */
  closeRedis?: boolean
  /** Run a job worker in this instance; `false`: it only enqueues and answers job status. [true] */
  jobWorker?: boolean
}

/** Languages of the `statusLabel` field (`Accept-Language`); the first is the default. */
export const LANGUAGES = ['en', 'de', 'fr'] as const

/** Paths that are documentation, not resources: public, and outside the naming rules. */
export const DOC_PATHS: readonly string[] = ['/docs', '/openapi.json']

/** A principal: who the token belongs to and what it may do. */
export interface Principal {
  name: 'reader' | 'writer'
  scopes: string[]
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The Bearer check: the write token reads and writes, the read token reads. */
export function verifyToken(tokens: Tokens): (token: string) => Principal | null {
  return (token) => {
    if (sameToken(token, tokens.write)) return { name: 'writer', scopes: ['read', 'write'] }
    if (sameToken(token, tokens.read)) return { name: 'reader', scopes: ['read'] }
    return null
  }
}

export { MIGRATION_LOCK, prepareDatabase } from './prepare.js'

/** Builds the app over an open, migrated database. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  // Atomic batches: the requests of one run in its transaction (src/batch-transaction.ts).
  const ambient = ambientTransactions(options.db)
  const db = guarded(ambient.db)
  // clientErrorHandler: what Node's HTTP parser refuses (a malformed request, a header section
  // over 16 KB, a request timeout) is answered in the error form too; frameworkErrors: what
  // Fastify's router refuses (a malformed %-escape in the path, a too-long path parameter);
  // return503OnClosing: false lets restwell answer requests that arrive during a shutdown
  // (a 503 in the error form with Retry-After and Connection: close); removeAdditional: false
  // makes an unknown body field a 400 naming it, as an unknown query parameter is, where
  // Fastify's default Ajv would drop it silently (the schemas set additionalProperties: false).
  const app = Fastify({
    ajv: { customOptions: { removeAdditional: false } },
    logger: options.logger ?? false,
    genReqId,
    clientErrorHandler,
    frameworkErrors,
    return503OnClosing: false,
    // restwell loads its optional parts (rate limit, overload, jobs) when registered: on a busy
    // machine that can outlast Fastify's 10 s default, which is there to catch a hung plugin.
    pluginTimeout: 60_000,
  })
  // onClose hooks run last-registered first: these two run after restwell's (the job worker).
  if (options.closeDatabase !== false) app.addHook('onClose', () => options.db.close())
  const { redis } = options
  if (redis !== undefined && options.closeRedis !== false) {
    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect())
    })
  }

  // `/v1/books/01` or `/v1/books/1e0` is no book: integer path parameters have one form.
  app.addHook('onRoute', canonicalIntegerParams)

  // The documentation routes are public and are not resources (no naming rules, no negotiation);
  // the queue dashboard is not a resource either, and needs the write token.
  app.addHook('onRoute', (route) => {
    if (DOC_PATHS.some((p) => route.url === p || route.url.startsWith(`${p}/`))) {
      const publicDocs: Record<string, unknown> = { auth: false, naming: false, negotiation: false }
      route.config = { ...route.config, ...publicDocs }
    }
    if (route.url === DASHBOARD_PATH || route.url.startsWith(`${DASHBOARD_PATH}/`)) {
      const dashboard: Record<string, unknown> = { auth: WRITE, naming: false, negotiation: false }
      route.config = { ...route.config, ...dashboard }
    }
  })

  // restwell describes every route through swagger's route transforms; restwellOpenapi only
  // keeps shared schemas under their $id (`#/components/schemas/RestwellError`).
  await app.register(
    swagger,
    restwellOpenapi({
      openapi: '3.2.0',
      info: {
        title: 'Bookshelf',
        description:
          'The restwell example API: a library catalogue. Every resource needs `Authorization: Bearer <token>`: the read token for GET, the write token for writes.',
        version: '1.0.0',
      },
    }),
  )

  const healthCheck = async (): Promise<boolean> => {
    try {
      await db.query('select 1')
      return true
    } catch {
      return false
    }
  }

  await app.register(restwell, {
    methodOverride: {},
    versioning: { versions: [1, 2], defaultVersion: 1, moved: { '/v1/titles': '/v2/books' } },
    cors: {
      origin: options.corsOrigins ?? '*',
      allowedHeaders: ['x-http-method-override', 'accept-language'],
    },
    underPressure: {
      maxEventLoopDelay: options.maxEventLoopDelay ?? 1000,
      healthCheck,
      healthCheckInterval: options.healthCheckInterval ?? 5000,
      retryAfter: 10,
    },
    rateLimit: {
      max: options.rateLimitMax ?? 600,
      timeWindow: '1 minute',
      ...(redis === undefined ? {} : { redis, nameSpace: 'bookshelf-rate-limit-' }),
    },
    auth: { verify: verifyToken(options.tokens), requirement: { scopes: ['read'] } },
    negotiation: { languages: [...LANGUAGES] },
    pagination: { defaultLimit: 10, maxLimit: 100 },
    softDelete: { mode: 'soft', gone: false },
    // A retried POST /v1/books or /v1/exports with its Idempotency-Key gets the first answer;
    // with Redis every instance sees the keys.
    idempotency:
      redis === undefined ? {} : { store: { redis, keyPrefix: 'bookshelf-idempotency:' } },
    naming: { mode: 'error', exclude: [...DOC_PATHS, DASHBOARD_PATH], allow: ['cover', 'result'] },
    // Every instance defines the jobs (`defineExportJob` below) and, unless told not to, runs a
    // worker: with Redis (a BullMQ queue), a job enqueued on one instance may run on any, or in
    // a worker process of its own (`pnpm worker`, src/worker.ts).
    jobs: {
      basePath: '/jobs',
      estimatedTime: 5,
      worker: options.jobWorker ?? true,
      ...(redis === undefined ? {} : { store: { redis, ...JOB_QUEUE, jobOptions: JOB_OPTIONS } }),
    },
    // POST /batch: up to 50 operations, `"atomic": true` in one database transaction.
    batch: { maxOperations: 50, transaction: ambient.transaction },
  })
  // bullmq's Queue: @restwell/jobs types it by a few members, bullmq being an optional peer.
  const queue = app.jobs.queue as Queue | undefined
  if (queue !== undefined) await app.register(dashboardRoutes, { queue })

  // Swagger UI and the OpenAPI document: after restwell, so errors, compression and ETags
  // apply to them too; the onRoute hook above made them public.
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  // Each version's routes answer at /v<N>/… and, by Accept, ?version= or as the default
  // version, unprefixed (`versioned` registers them for both).
  defineExportJob(app, db)
  await app.register(versioned(1, booksRoutes, { db }))
  await app.register(versioned(1, authorsRoutes, { db }))
  await app.register(versioned(1, coversRoutes, { db }))
  await app.register(versioned(1, exportsRoutes, { db }))
  await app.register(versioned(2, v2Routes, { db }))
  return app
}
