/**
 * One instance of the reliability app in its own process, for the several-instances test:
 * `node --conditions=restwell-source --import tsx test/reliability/instance-server.ts`.
 * Environment: REDIS_URL, DATABASE_URL, TABLE, WORKER (0/1), RATE_MAX. Prints `READY <url>`.
 */
import { Redis } from 'ioredis'
import { buildReliabilityApp } from './app.js'
import { openPostgres, pgStore } from './pg-store.js'

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`${name} is required`)
  return value
}

const redis = new Redis(env('REDIS_URL'), { maxRetriesPerRequest: 1, commandTimeout: 2000 })
redis.on('error', () => {})
const db = await openPostgres(env('DATABASE_URL'))
const app = await buildReliabilityApp({
  store: pgStore(db, env('TABLE')),
  redis,
  worker: process.env.WORKER !== '0',
  rateLimit: { max: Number(env('RATE_MAX')) },
})
app.addHook('onClose', async () => {
  await db.close()
  redis.disconnect()
})
const url = await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`READY ${url}\n`)
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0))
})
