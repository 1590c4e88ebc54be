/** Opens the database, migrates and seeds it, and builds the app: what `pnpm start` runs. */
import type { FastifyInstance } from 'fastify'
import { type AppOptions, buildApp, prepareDatabase } from './app.js'
import type { Config } from './config.js'
import { openDatabase } from './db.js'

export interface Bookshelf {
  app: FastifyInstance
  /** `pglite:<folder>` or the server URL without its password. */
  database: string
  seeded: boolean
}

/** Throws `DatabaseUnavailableError` (a message saying what to do) when the database is unusable. */
export async function startBookshelf(
  config: Config,
  extra: Partial<Pick<AppOptions, 'logger' | 'maxEventLoopDelay' | 'healthCheckInterval'>> = {},
): Promise<Bookshelf> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  let seeded: boolean
  try {
    seeded = (await prepareDatabase(db)).seeded
  } catch (error) {
    await db.close().catch(() => {})
    throw error
  }
  const app = await buildApp({
    db,
    tokens: config.tokens,
    corsOrigins: config.corsOrigins,
    rateLimitMax: config.rateLimitMax,
    ...extra,
  })
  // The start-up stall of the event loop (schemas compiled, PGlite warmed up) is not shed as
  // overload: the umbrella ignores event-loop pressure for two samples after ready.
  await app.listen({ port: config.port, host: config.host })
  return { app, database: db.description, seeded }
}
