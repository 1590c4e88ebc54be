/** `pnpm start`: the bookshelf API on http://127.0.0.1:3000 (see the README for the settings). */
import { ConfigError, loadConfig } from './config.js'
import { DatabaseUnavailableError } from './db.js'
import { startBookshelf } from './main.js'

try {
  const config = loadConfig()
  const { app, database, redis, seeded } = await startBookshelf(config, {
    logger: process.env.BOOKSHELF_LOG === '1',
  })
  const { port } = app.server.address() as { port: number }
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`
  const read = `-H 'authorization: Bearer ${config.tokens.read}'`
  const write = `-H 'authorization: Bearer ${config.tokens.write}'`
  process.stdout.write(`
bookshelf API listening on ${base}
  database:    ${database}${seeded ? ' (new: seeded with 3 authors and 7 books)' : ''}
  redis:       ${redis ?? 'none (rate limits and jobs in this process: set REDIS_URL to run several instances)'}${config.jobWorker ? '' : '\n  jobs:        enqueued here, run by worker processes (JOB_WORKER=0: start them with `pnpm worker`)'}
  read token:  ${config.tokens.read}
  write token: ${config.tokens.write}${config.devTokens ? '\n  (development defaults: set BOOKSHELF_READ_TOKEN and BOOKSHELF_WRITE_TOKEN in production)' : ''}
  docs:        ${base}/docs   (OpenAPI: ${base}/openapi.json)${redis === undefined ? '' : `\n  queues:      ${base}/admin/queues   (BullMQ dashboard; the write token)`}

try:
  curl -i ${read} '${base}/v1/books?status=available&sort=-publishedAt&limit=2'
  curl -i ${read} ${base}/v1/books/1
  curl -D - -o /dev/null ${read} -r 0-99 ${base}/v1/books/1/cover
  curl -i ${write} -X POST ${base}/v1/books -H 'content-type: application/json' \\
       -d '{"title":"Dune","isbn":"978-0441013593","authorId":1}'
  curl -i ${write} -X PATCH ${base}/v1/books/1 -H 'if-match: "1"' \\
       -H 'content-type: application/merge-patch+json' -d '{"status":"checked-out"}'
  curl -i ${read} -X OPTIONS ${base}/v1/books
`)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    })
  }
} catch (error) {
  if (error instanceof DatabaseUnavailableError || error instanceof ConfigError) {
    process.stderr.write(`bookshelf: ${error.message}\n`)
    process.exit(1)
  }
  const listen = error as { code?: string; message?: string }
  if (listen.code === 'EADDRINUSE' || listen.code === 'EACCES') {
    process.stderr.write(`bookshelf: cannot listen: ${listen.message} (set PORT)\n`)
    process.exit(1)
  }
  throw error
}
