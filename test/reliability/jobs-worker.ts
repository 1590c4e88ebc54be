/**
 * One worker process of `jobs-processes.test.ts`: a plain BullMQ `Worker` running restwell's
 * `jobProcessor`, no Fastify. Env: REDIS_URL, QUEUE, LOCK_MS (BullMQ `lockDuration`),
 * STALLED_MS (`stalledInterval`). The `work` handler sleeps `sleepMs` and is not idempotent on
 * purpose: each run prints `START <jobId> <pid>`, each completion BullMQ recorded prints
 * `DONE <jobId> <pid>`. Prints `READY` once connected; SIGTERM closes it gracefully.
 */
import { jobProcessor } from '@restwell/jobs'
import { Worker } from 'bullmq'
import { Redis } from 'ioredis'

const out = (line: string): void => {
  process.stdout.write(`${line}\n`)
}
const processor = jobProcessor(
  {
    work: async (payload: { sleepMs?: number }, ctx) => {
      out(`START ${ctx.jobId} ${process.pid}`)
      await new Promise((resolve) => setTimeout(resolve, payload.sleepMs ?? 0))
      return { by: process.pid }
    },
  },
  { closeTimeoutMs: 2000 },
)
const connection = new Redis(process.env.REDIS_URL as string, {
  maxRetriesPerRequest: null,
  retryStrategy: (times) => Math.min(times * 100, 500),
})
connection.on('error', () => undefined)
const worker = processor.attach(
  new Worker(process.env.QUEUE as string, processor, {
    connection,
    concurrency: 4,
    lockDuration: Number(process.env.LOCK_MS),
    stalledInterval: Number(process.env.STALLED_MS),
    // Fetch again half a second after a Redis error (BullMQ waits 15 s by default).
    runRetryDelay: 500,
  }),
)
worker.on('error', () => undefined)
worker.on('completed', (job) => out(`DONE ${job.id} ${process.pid}`))
await worker.waitUntilReady()
out('READY')
process.once('SIGTERM', () => {
  processor
    .close()
    .then(() => connection.quit())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    )
})
