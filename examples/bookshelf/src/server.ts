/** Starts the bookshelf API on http://127.0.0.1:3000 (PORT and HOST override). */
import { buildApp } from './app.js'

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'
const app = await buildApp({ logger: true })
await app.listen({ port, host })
const base = `http://${host}:${port}`
process.stdout.write(`
bookshelf API listening on ${base}
try:
  curl -i ${base}/v1/books
  curl -i ${base}/v1/books/1
  curl -i -X PATCH ${base}/v1/books/1          # 405 with Allow
  curl -i -X OPTIONS ${base}/v1/books          # 200 with Allow
  curl -i -X POST ${base}/v1/books -H 'content-type: application/json' -d '{"title":"Dune","isbn":"978-0441013593"}'
`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(() => process.exit(0))
  })
}
