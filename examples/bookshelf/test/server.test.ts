/** `pnpm start` (src/server.ts) as a process: what it prints, and how it fails; and the pure parts. */
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'
import { freePort } from '../../../test/helpers/services.js'
import { ConfigError, DEV_TOKENS, loadConfig } from '../src/config.js'
import { isConnectionError, mapDatabaseError } from '../src/db-errors.js'
import { tempDir } from './helpers.js'

const root = fileURLToPath(new URL('..', import.meta.url))

interface Run {
  code: Promise<number | null>
  output: () => { stdout: string; stderr: string }
  waitFor: (pattern: RegExp) => Promise<string>
  kill: () => void
}

/** What `pnpm start` runs (package.json), with the given environment. */
function server(env: Record<string, string>): Run {
  const child = spawn(
    process.execPath,
    ['--conditions=restwell-source', '--import', 'tsx', 'src/server.ts'],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stdout = ''
  let stderr = ''
  const listeners = new Set<() => void>()
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    for (const listener of listeners) listener()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const code = new Promise<number | null>((resolve) =>
    child.once('exit', (status) => resolve(status)),
  )
  return {
    code,
    output: () => ({ stdout, stderr }),
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(stdout)
          if (match !== null) {
            listeners.delete(check)
            resolve(match[0])
          }
        }
        listeners.add(check)
        check()
        code.then((status) => reject(new Error(`exited with ${status}: ${stderr}`)))
      }),
    kill: () => child.kill('SIGTERM'),
  }
}

test('pnpm start prints the URL, the tokens and curl lines, serves, and stops on SIGTERM', async (t) => {
  const run = server({ PORT: '0', BOOKSHELF_DATA_DIR: join(tempDir(t), 'data') })
  t.teardown(run.kill)
  await run.waitFor(/-X OPTIONS \S+\/v1\/books\n/)
  const { stdout } = run.output()
  const base = /bookshelf API listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] as string
  t.ok(base, 'prints the URL')
  t.match(stdout, `read token:  ${DEV_TOKENS.read}`)
  t.match(stdout, `write token: ${DEV_TOKENS.write}`)
  t.match(stdout, /development defaults/)
  t.match(stdout, /seeded with 3 authors and 7 books/)
  t.match(stdout, /redis: +none \(rate limits and jobs in this process/)
  t.match(stdout, `curl -i -H 'authorization: Bearer ${DEV_TOKENS.read}' ${base}/v1/books/1`)
  const books = await fetch(`${base}/v1/books`, {
    headers: { authorization: `Bearer ${DEV_TOKENS.read}` },
  })
  t.equal(books.status, 200)
  t.equal(books.headers.get('x-total-count'), '7')
  run.kill()
  t.equal(await run.code, 0, 'exits cleanly on SIGTERM')
})

test('an unusable data folder, DATABASE_URL, REDIS_URL or setting: a clear message and exit code 1', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, 'a-file')
  writeFileSync(file, 'not a folder')
  const port = await freePort()
  const cases: { env: Record<string, string>; message: RegExp }[] = [
    {
      env: { BOOKSHELF_DATA_DIR: join(file, 'data') },
      message: /^bookshelf: Cannot use the data folder .*a-file\/data: .*Set BOOKSHELF_DATA_DIR/,
    },
    {
      env: { DATABASE_URL: `postgres://app:secret@127.0.0.1:${port}/books` },
      message:
        /^bookshelf: Cannot connect to DATABASE_URL postgres:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/books: /,
    },
    {
      env: {
        REDIS_URL: `redis://:secret@127.0.0.1:${port}`,
        BOOKSHELF_DATA_DIR: join(dir, 'redis-down'),
      },
      message:
        /^bookshelf: Cannot connect to REDIS_URL redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: connect ECONNREFUSED/,
    },
    {
      env: { PORT: 'eighty', BOOKSHELF_DATA_DIR: join(dir, 'unused') },
      message: /^bookshelf: PORT must be an integer/,
    },
  ]
  const runs = cases.map((c) => ({ ...c, run: server(c.env) }))
  for (const { run, message, env } of runs) {
    t.equal(await run.code, 1, `exit code 1 for ${JSON.stringify(env)}`)
    t.match(run.output().stderr, message)
    t.notMatch(run.output().stderr, /secret/, 'the password is never printed')
  }
})

test('connection failures are 503 + Retry-After, constraint violations 409, data exceptions 400, the rest unknown', async (t) => {
  for (const error of [
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    Object.assign(new Error('terminating connection'), { code: '57P01' }),
    Object.assign(new Error('connection failure'), { code: '08006' }),
    new Error('Connection terminated unexpectedly'),
    new Error('PGlite is closed'),
  ]) {
    t.ok(isConnectionError(error), error.message)
    t.match(mapDatabaseError(error), {
      statusCode: 503,
      code: 'DATABASE_UNAVAILABLE',
      headers: { 'retry-after': 5 },
    })
  }
  t.match(mapDatabaseError(Object.assign(new Error('dup'), { code: '23505' })), {
    statusCode: 409,
    code: 'DUPLICATE',
  })
  t.match(mapDatabaseError(Object.assign(new Error('fk'), { code: '23503' })), {
    statusCode: 409,
    code: 'REFERENCE_CONFLICT',
  })
  for (const code of ['22003', '22021', '22008', '22P02', '2200N']) {
    const sqlMessage = `value "2147483648" is out of range for type integer (${code})`
    const mapped = mapDatabaseError(Object.assign(new Error(sqlMessage), { code }))
    t.match(mapped, { statusCode: 400, code: 'INVALID_VALUE', expose: true }, code)
    t.notMatch((mapped as Error).message, /integer|2147483648/, 'the SQL message is not sent')
  }
  const syntax = Object.assign(new Error('syntax error'), { code: '42601' })
  t.equal(mapDatabaseError(syntax), syntax, 'left for the errors plugin to mask as a 500')
  t.notOk(isConnectionError(null))
  t.notOk(isConnectionError('ECONNREFUSED'))
})

test('settings come from the environment, with development defaults', async (t) => {
  const defaults = loadConfig({})
  t.match(defaults, {
    port: 3000,
    host: '127.0.0.1',
    dataDir: 'data/pglite',
    tokens: DEV_TOKENS,
    devTokens: true,
    corsOrigins: '*',
  })
  const set = loadConfig({
    PORT: '8080',
    BOOKSHELF_READ_TOKEN: 'r',
    BOOKSHELF_WRITE_TOKEN: 'w',
    BOOKSHELF_CORS_ORIGINS: 'https://a.example, https://b.example',
    DATABASE_URL: 'postgres://db/x',
  })
  t.match(set, {
    port: 8080,
    tokens: { read: 'r', write: 'w' },
    devTokens: false,
    databaseUrl: 'postgres://db/x',
  })
  t.same(set.corsOrigins, ['https://a.example', 'https://b.example'])
  t.equal(defaults.redisUrl, undefined, 'no REDIS_URL: rate limits and jobs in memory')
  t.equal(loadConfig({ REDIS_URL: 'redis://cache:6379/2' }).redisUrl, 'redis://cache:6379/2')
  t.throws(() => loadConfig({ REDIS_URL: 'cache:6379' }), /REDIS_URL must be a redis:\/\//)
  t.throws(() => loadConfig({ PORT: '99999' }), ConfigError)
  t.throws(
    () => loadConfig({ BOOKSHELF_READ_TOKEN: 'same', BOOKSHELF_WRITE_TOKEN: 'same' }),
    /must differ/,
  )
})
