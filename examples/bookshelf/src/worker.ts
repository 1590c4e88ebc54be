/**
 * `pnpm worker`: runs the bookshelf's export jobs in a process of its own, a plain BullMQ
 * `Worker` with restwell's `jobProcessor`; it never loads Fastify. API instances started with
 * `JOB_WORKER=0` only enqueue and answer the jobs' status; any number of these run the jobs.
 * Needs REDIS_URL (the queue) and DATABASE_URL (a PostgreSQL server shared with the API
 * instances: PGlite belongs to one process). SIGTERM or Ctrl-C: running exports finish (or are
 * given back to the queue after 10 s), then it exits.
 *
 * Settings: WORKER_CONCURRENCY (exports at once, [2]), and BullMQ's lock and stalled check in
 * ms, JOB_LOCK_MS [30000] and JOB_STALLED_MS [30000]: a worker that dies mid-export leaves its
 * job to another once its lock has expired, found by the next stalled check.
 */
import { jobProcessor } from '@restwell/jobs'
import { Worker } from 'bullmq'
import { Redis } from 'ioredis'
import { ConfigError, loadConfig } from './config.js'
import { DatabaseUnavailableError, openDatabase, redact } from './db.js'
import { EXPORT_JOB, exportBooks, JOB_QUEUE } from './export-job.js'
import { prepareDatabase } from './prepare.js'

function integer(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!/^[0-9]+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`)
  }
  return value
}

try {
  const config = loadConfig()
  if (config.redisUrl === undefined) {
    throw new ConfigError('the worker needs REDIS_URL: the queue the API instances enqueue to')
  }
  if (config.databaseUrl === undefined) {
    throw new ConfigError(
      'the worker needs DATABASE_URL: a PostgreSQL server the API instances use too (PGlite is one process’s)',
    )
  }
  const concurrency = integer('WORKER_CONCURRENCY', 2, 1, 100)
  const lockDuration = integer('JOB_LOCK_MS', 30_000, 100, 3_600_000)
  const stalledInterval = integer('JOB_STALLED_MS', 30_000, 100, 3_600_000)
  const db = await openDatabase({ databaseUrl: config.databaseUrl })
  await prepareDatabase(db)
  // BullMQ's worker waits for Redis rather than failing its commands: a finished export's
  // outcome is written once Redis is back.
  const connection = new Redis(config.redisUrl, {
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  })
  let down = false
  connection.on('error', (error) => {
    if (!down) process.stderr.write(`bookshelf worker: redis: ${error.message}\n`)
    down = true
  })
  connection.on('ready', () => {
    down = false
  })
  const processor = jobProcessor({ [EXPORT_JOB]: exportBooks(db) }, { closeTimeoutMs: 10_000 })
  const worker = processor.attach(
    new Worker(JOB_QUEUE.queue, processor, {
      connection,
      prefix: JOB_QUEUE.keyPrefix,
      concurrency,
      lockDuration,
      stalledInterval,
      // Take jobs again a second after Redis is back (BullMQ's default waits 15 s).
      runRetryDelay: 1000,
    }),
  )
  worker.on('error', () => undefined) // the connection's listener reports Redis errors
  worker.on('completed', (job) => {
    process.stdout.write(`completed ${job.name} ${job.id} → ${JSON.stringify(job.returnvalue)}\n`)
  })
  worker.on('failed', (job, error) => {
    process.stdout.write(`failed ${job?.name} ${job?.id}: ${error.message}\n`)
  })
  await worker.waitUntilReady()
  process.stdout.write(
    `bookshelf worker: running ${EXPORT_JOB} jobs from ${redact(config.redisUrl)} (queue ${JOB_QUEUE.keyPrefix}:${JOB_QUEUE.queue}), ${concurrency} at once\n  database: ${db.description}\n`,
  )
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      processor
        .close()
        .then(() => db.close())
        .then(() => connection.quit())
        .then(
          () => process.exit(0),
          () => process.exit(1),
        )
    })
  }
} catch (error) {
  if (error instanceof DatabaseUnavailableError || error instanceof ConfigError) {
    process.stderr.write(`bookshelf worker: ${error.message}\n`)
    process.exit(1)
  }
  throw error
}
