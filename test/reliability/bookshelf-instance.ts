/**
 * One instance of the bookshelf example in its own process, for the several-instances test:
 * `node --conditions=restwell-source --import tsx test/reliability/bookshelf-instance.ts`.
 * The bookshelf's own `loadConfig` + `startBookshelf` (what `pnpm start` runs), so the settings
 * come from the environment: PORT, HOST, DATABASE_URL, REDIS_URL, BOOKSHELF_RATE_LIMIT,
 * BOOKSHELF_READ_TOKEN, BOOKSHELF_WRITE_TOKEN. Two differences from `pnpm start`, both set
 * here: no event-loop threshold (as in the bookshelf's own tests: three instances, Redis and
 * PostgreSQL share a 2-CPU machine, where a 503 would be the machine's fault), and
 * JOB_WORKER=0 runs no job worker. Prints `READY <url>`; SIGTERM closes it.
 */
import { loadConfig } from '../../examples/bookshelf/src/config.js'
import { startBookshelf } from '../../examples/bookshelf/src/main.js'

const { app } = await startBookshelf(loadConfig(), {
  maxEventLoopDelay: 0,
  jobWorker: process.env.JOB_WORKER !== '0',
})
const { port } = app.server.address() as { port: number }
process.stdout.write(`READY http://127.0.0.1:${port}\n`)
process.once('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
})
