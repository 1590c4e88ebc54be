/** The bookshelf's settings, from the environment, with development defaults. */
import type { Tokens } from './app.js'

/** Development tokens, used when BOOKSHELF_READ_TOKEN / BOOKSHELF_WRITE_TOKEN are not set. */
export const DEV_TOKENS: Tokens = { read: 'dev-read-token', write: 'dev-write-token' }

export interface Config {
  port: number
  host: string
  databaseUrl: string | undefined
  /** Redis shared by several instances (rate limits, jobs); unset: in memory, one instance. */
  redisUrl: string | undefined
  dataDir: string
  tokens: Tokens
  /** True when a token is the development default (printed as a warning). */
  devTokens: boolean
  corsOrigins: '*' | string[]
  rateLimitMax: number
  /** Run the export jobs in this process; JOB_WORKER=0: only enqueue them (`pnpm worker` runs them). */
  jobWorker: boolean
}

/** Thrown for a setting that cannot be used; the message names it. */
export class ConfigError extends Error {
  override readonly name: string = 'ConfigError'
}

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!/^[0-9]+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`)
  }
  return value
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw !== '0' && raw !== '1') throw new ConfigError(`${name} must be 0 or 1, got "${raw}"`)
  return raw === '1'
}

function redisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined
  if (!/^rediss?:\/\//.test(raw)) {
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL')
  }
  return raw
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const read = env.BOOKSHELF_READ_TOKEN || DEV_TOKENS.read
  const write = env.BOOKSHELF_WRITE_TOKEN || DEV_TOKENS.write
  if (read === write)
    throw new ConfigError('BOOKSHELF_READ_TOKEN and BOOKSHELF_WRITE_TOKEN must differ')
  const origins = (env.BOOKSHELF_CORS_ORIGINS ?? '*')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
  const jobWorker = flag(env, 'JOB_WORKER', true)
  if (!jobWorker && redisUrl(env.REDIS_URL) === undefined) {
    throw new ConfigError(
      'JOB_WORKER=0 needs REDIS_URL: the queue that worker processes take jobs from',
    )
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: redisUrl(env.REDIS_URL),
    dataDir: env.BOOKSHELF_DATA_DIR || 'data/pglite',
    tokens: { read, write },
    devTokens: read === DEV_TOKENS.read || write === DEV_TOKENS.write,
    corsOrigins: origins.length === 0 || origins.includes('*') ? '*' : origins,
    rateLimitMax: integer(env, 'BOOKSHELF_RATE_LIMIT', 600, 1, 1_000_000),
    jobWorker,
  }
}
