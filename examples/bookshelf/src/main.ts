/** Opens the database, migrates and seeds it, and builds the app: what `pnpm start` runs. */
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { type AppOptions, buildApp, prepareDatabase } from './app.js'
import type { Config } from './config.js'
import { type Database, DatabaseUnavailableError, openDatabase, redact } from './db.js'

export interface Bookshelf {
  app: FastifyInstance
  /** `pglite:<folder>` or the server URL without its password. */
  database: string
  /** The Redis URL without its password, or `undefined` (rate limits and jobs in memory). */
  redis: string | undefined
  seeded: boolean
}

/** Connects to REDIS_URL; throws `DatabaseUnavailableError` (closing the database) if it cannot. */
async function openRedis(url: string, db: Database): Promise<Redis> {
  // Default reconnection (a lost Redis comes back by itself); the rate limit's storeTimeout and
  // the jobs' timeoutMs bound how long a request waits for it meanwhile (503 + Retry-After).
  const redis = new Redis(url, { lazyConnect: true })
  // Without a listener ioredis prints every failed reconnection; the answers (503) say enough.
  redis.on('error', () => {})
  let cause: Error | undefined
  const remember = (error: Error): void => {
    cause = error
  }
  redis.on('error', remember)
  try {
    await redis.connect()
    redis.off('error', remember)
    return redis
  } catch (error) {
    redis.disconnect()
    await db.close().catch(() => {})
    throw new DatabaseUnavailableError(
      `Cannot connect to REDIS_URL ${redact(url)}: ${(cause ?? (error as Error)).message}`,
    )
  }
}

/** Throws `DatabaseUnavailableError` (a message saying what to do) when the database is unusable. */
export async function startBookshelf(
  config: Config,
  extra: Partial<
    Pick<AppOptions, 'logger' | 'maxEventLoopDelay' | 'healthCheckInterval' | 'jobWorker'>
  > = {},
): Promise<Bookshelf> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  let seeded: boolean
  try {
    seeded = (await prepareDatabase(db)).seeded
  } catch (error) {
    await db.close().catch(() => {})
    throw error
  }
  const redis = config.redisUrl === undefined ? undefined : await openRedis(config.redisUrl, db)
  const app = await buildApp({
    db,
    tokens: config.tokens,
    corsOrigins: config.corsOrigins,
    rateLimitMax: config.rateLimitMax,
    jobWorker: config.jobWorker,
    ...(redis === undefined ? {} : { redis }),
    ...extra,
  })
  // The start-up stall of the event loop (schemas compiled, PGlite warmed up) is not shed as
  // overload: the umbrella ignores event-loop pressure for two samples after ready.
  await app.listen({ port: config.port, host: config.host })
  return {
    app,
    database: db.description,
    redis: config.redisUrl === undefined ? undefined : redact(config.redisUrl),
    seeded,
  }
}
