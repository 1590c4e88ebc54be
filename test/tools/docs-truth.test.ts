/**
 * The docs say what the code does: the defaults docs/conventions.md states are the answers a
 * one-line app sends, and every value a Markdown example imports from a restwell package is one
 * that package exports.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import restwell from 'restwell'
import tap, { test } from 'tap'
// @ts-expect-error: a plain .mjs script, without declarations
import { markdownFiles } from '../../scripts/check-links.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const conventions = readFileSync(join(ROOT, 'docs/conventions.md'), 'utf8')

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

/** A one-line app with a public read and one behind auth. */
async function build(options: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, {
    auth: { verify: (token: string) => (token === 'ok' ? { scopes: [] } : null) },
    ...options,
  })
  app.get('/books', { config: { auth: false } }, async () => [])
  app.get('/notes', { config: { auth: true } }, async () => [])
  return app
}

/** The second cell of the table row of conventions.md whose first cell is `first`. */
function cell(first: string): string {
  const row = conventions.split('\n').find((line) => line.startsWith(`| ${first} |`))
  if (row === undefined) throw new Error(`docs/conventions.md has no row "${first}"`)
  return (row.split('|')[2] ?? '').trim().replaceAll('`', '')
}

test('conventions.md: the Cache-Control table is what a one-line app sends', async (t) => {
  const app = await build()
  const plain = await app.inject('/books')
  t.equal(plain.headers['cache-control'], cell('GET/HEAD/QUERY 2xx/3xx without a policy'))
  const credentials = cell(
    'the same, on a route that authenticates or to a request with `Authorization` or `Cookie`',
  )
  const authenticated = await app.inject({ url: '/notes', headers: { authorization: 'Bearer ok' } })
  t.equal(authenticated.headers['cache-control'], credentials)
  const cookie = await app.inject({ url: '/books', headers: { cookie: 'a=1' } })
  t.equal(cookie.headers['cache-control'], credentials)
  const failed = await app.inject('/nothing')
  t.equal(failed.headers['cache-control'], cell('writes, OPTIONS, every error'))
})

test('conventions.md: Vary: Origin only with named origins, as it says', async (t) => {
  const row = cell('CORS request (with `Origin`)')
  t.match(row, /default origin: '\*' on every answer and no Vary: Origin/)
  t.match(row, /named origins .* and Vary: Origin on every answer/)
  const star = await (await build()).inject({
    url: '/books',
    headers: { origin: 'https://a.example' },
  })
  t.equal(star.headers['access-control-allow-origin'], '*')
  t.notMatch(String(star.headers.vary ?? ''), /origin/i)
  const named = await build({ cors: { origin: ['https://a.example'] } })
  for (const origin of [undefined, 'https://a.example', 'https://b.example']) {
    const answer = await named.inject({ url: '/books', headers: origin ? { origin } : {} })
    t.match(String(answer.headers.vary), /origin/i, `Vary: Origin, Origin ${origin}`)
  }
})

/** The entry point a specifier names (`@restwell/core/internal`), as a path to its source. */
function sourceOf(specifier: string): string {
  const parts = specifier.split('/')
  const scoped = parts[0] !== 'restwell'
  const dir = (scoped ? parts[1] : parts[0]) ?? ''
  const entry = ['.', ...parts.slice(scoped ? 2 : 1)].join('/')
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8'))
  const source = manifest.exports?.[entry]?.['restwell-source']
  if (typeof source !== 'string') throw new Error(`${specifier}: no entry ${entry} in its exports`)
  return join(ROOT, 'packages', dir, source)
}

/** Each `import { … } from '<restwell package>'` of a Markdown file's code: the values it names. */
function importedValues(markdown: string): { specifier: string; names: string[] }[] {
  const found: { specifier: string; names: string[] }[] = []
  const pattern =
    /import\s+(type\s+)?\{([^}]*)\}\s+from\s+'(restwell|@restwell\/[a-z-]+)((?:\/[a-z-]+)?)'/g
  for (const match of markdown.matchAll(pattern)) {
    if (match[1] !== undefined) continue
    const names = (match[2] ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '' && !part.startsWith('type '))
      .map((part) => part.split(/\s+as\s+/)[0] ?? part)
    found.push({ specifier: `${match[3] ?? ''}${match[4] ?? ''}`, names })
  }
  return found
}

test('importedValues reads value imports, not type imports', async (t) => {
  t.same(
    importedValues(
      "import { a, type B, c as d } from '@restwell/core'\nimport type { E } from 'restwell'\nimport {\n  f,\n} from 'restwell'\nimport { g } from '@restwell/core/internal'",
    ),
    [
      { specifier: '@restwell/core', names: ['a', 'c'] },
      { specifier: 'restwell', names: ['f'] },
      { specifier: '@restwell/core/internal', names: ['g'] },
    ],
  )
})

test('sourceOf: the source of the entry point a specifier names', async (t) => {
  t.equal(sourceOf('restwell'), join(ROOT, 'packages/restwell/src/index.ts'))
  t.equal(sourceOf('@restwell/core'), join(ROOT, 'packages/core/src/index.ts'))
  t.equal(sourceOf('@restwell/core/internal'), join(ROOT, 'packages/core/src/internal.ts'))
  t.throws(() => sourceOf('@restwell/core/nothing'), /no entry \.\/nothing/)
})

test('every value a Markdown example imports from a restwell package is exported by it', async (t) => {
  const missing: string[] = []
  let checked = 0
  for (const file of markdownFiles() as string[]) {
    for (const { specifier, names } of importedValues(readFileSync(file, 'utf8'))) {
      const exported = (await import(sourceOf(specifier))) as Record<string, unknown>
      for (const name of names) {
        checked++
        if (!(name in exported))
          missing.push(`${file.slice(ROOT.length)}: ${name} from ${specifier}`)
      }
    }
  }
  t.ok(checked > 0, 'the docs import something')
  t.same(missing, [])
})
