/** Starts the bookshelf over a real socket, on PGlite (temp folder) or a real PostgreSQL. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { type AppOptions, buildApp, prepareDatabase } from '../src/app.js'
import { DEV_TOKENS } from '../src/config.js'
import { type Database, openDatabase } from '../src/db.js'

export const READ = `Bearer ${DEV_TOKENS.read}`
export const WRITE = `Bearer ${DEV_TOKENS.write}`

export interface Running {
  app: FastifyInstance
  db: Database
  base: string
  /** Fetch with the write token unless `authorization` is given (`null`: none). */
  call(
    method: string,
    path: string,
    init?: { headers?: Record<string, string | null>; body?: unknown; type?: string },
  ): Promise<Response>
  json<T = Record<string, unknown>>(response: Response): Promise<T>
}

export function tempDir(t: Test, prefix = 'bookshelf-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Opens (and migrates, seeds) the database, builds the app and listens on a free port. */
export async function start(
  t: Test,
  where: { databaseUrl?: string; dataDir?: string },
  options: Partial<AppOptions> = {},
): Promise<Running> {
  const db = await openDatabase(where)
  await prepareDatabase(db)
  // No event-loop threshold (CPU is shared in CI) and no periodic database ping: a test that
  // stops the database sees the 503 of the query itself, deterministically.
  const app = await buildApp({
    db,
    tokens: DEV_TOKENS,
    maxEventLoopDelay: 0,
    healthCheckInterval: 3_600_000,
    ...options,
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const base = `http://127.0.0.1:${port}`
  return {
    app,
    db,
    base,
    call: (method, path, init = {}) => {
      const headers: Record<string, string> = {}
      const given = init.headers ?? {}
      if (!('authorization' in given)) headers.authorization = WRITE
      for (const [name, value] of Object.entries(given)) if (value !== null) headers[name] = value
      let body: string | Uint8Array | undefined
      if (init.body !== undefined) {
        if (Buffer.isBuffer(init.body)) body = new Uint8Array(init.body)
        else body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body)
        headers['content-type'] ??= init.type ?? 'application/json'
      }
      return fetch(`${base}${path}`, { method, headers, body, redirect: 'manual' })
    },
    json: async <T>(response: Response) => (await response.json()) as T,
  }
}

/** A database of its own, so a shared POSTGRES_URL (CI) starts from an empty schema. */
export async function freshDatabase(
  postgres: { url: string },
  tag: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new URL(postgres.url)
  const name = `bookshelf_${tag}_${process.pid}_${Date.now()}`
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  await client.query(`create database ${name}`)
  await client.end()
  const url = new URL(postgres.url)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const cleanup = new pg.Client({ connectionString: admin.toString() })
      try {
        await cleanup.connect()
        await cleanup.query(`drop database if exists ${name} with (force)`)
      } catch {
        // The private server was stopped on purpose (the 503 test): nothing left to drop.
      } finally {
        await cleanup.end().catch(() => {})
      }
    },
  }
}
