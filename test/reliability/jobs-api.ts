/**
 * One API instance of `jobs-processes.test.ts`, in a process of its own: Fastify with
 * `@restwell/errors` and `@restwell/jobs` on a BullMQ queue, and no worker (the jobs run in
 * `jobs-worker.ts` processes). Env: REDIS_URL, QUEUE. `POST /work` enqueues a `work` job.
 * Prints `READY <url>`; SIGTERM closes it.
 */
import { restwellErrors } from '@restwell/errors'
import { restwellJobs } from '@restwell/jobs'
import Fastify from 'fastify'

const app = Fastify()
await app.register(restwellErrors)
await app.register(restwellJobs, {
  store: { redis: process.env.REDIS_URL as string, queue: process.env.QUEUE as string },
  worker: false,
  timeoutMs: 1000,
  retryAfter: 2,
})
app.jobs.define('work', { estimatedTime: 1 })
app.post('/work', async (request, reply) =>
  reply.accepted(await app.jobs.enqueue('work', request.body)),
)
await app.listen({ port: 0, host: '127.0.0.1' })
const { port } = app.server.address() as { port: number }
process.stdout.write(`READY http://127.0.0.1:${port}\n`)
process.once('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
})
