/**
 * RFC 9111 §4.4 through a real shared cache: a successful PUT, PATCH or DELETE through the
 * cache invalidates the stored response of its target URI, so the next GET reaches the app and
 * sees the write. Stock nginx does not implement §4.4 (see nginx.test.ts); Squid does.
 *
 * Squid is started from `/usr/sbin/squid` (Debian's `squid` package; `SQUID_BIN` overrides) as
 * a reverse proxy on a free loopback port, with a memory-only cache and its files in a temp
 * folder. Without squid the test is skipped, except in CI (`CI` set), where it fails.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import restwellCacheControl from '@restwell/cache-control'
import restwellConditional from '@restwell/conditional'
import restwellErrors from '@restwell/errors'
import Fastify from 'fastify'
import { test } from 'tap'
import { freePort } from '../helpers/services.js'
import { until } from '../helpers/patience.js'

const SQUID = process.env.SQUID_BIN ?? '/usr/sbin/squid'

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

async function startSquid(appPort: number): Promise<{ port: number; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'restwell-squid-'))
  chmodSync(dir, 0o777) // run as root, squid switches to its own user for logs and pid
  const port = await freePort()
  const conf = join(dir, 'squid.conf')
  writeFileSync(
    conf,
    [
      `http_port 127.0.0.1:${port} accel defaultsite=127.0.0.1 no-vhost`,
      `cache_peer 127.0.0.1 parent ${appPort} 0 no-query originserver name=app`,
      'cache_peer_access app allow all',
      'http_access allow all',
      'cache_mem 16 MB',
      'maximum_object_size_in_memory 1 MB',
      `pid_filename ${join(dir, 'squid.pid')}`,
      `cache_log ${join(dir, 'cache.log')}`,
      'access_log none',
      `coredump_dir ${dir}`,
      'shutdown_lifetime 0 seconds',
      'via off',
      '',
    ].join('\n'),
  )
  const child: ChildProcess = spawn(SQUID, ['-N', '-f', conf], { stdio: 'ignore' })
  await until(() => listening(port), 'squid listens')
  return {
    port,
    stop: async () => {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      })
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const available = existsSync(SQUID)
if (!available && process.env.CI) throw new Error(`squid not found at ${SQUID}`)

test('a write through Squid invalidates the stored GET (RFC 9111 §4.4)', {
  skip: !available,
}, async (t) => {
  const notes = new Map<string, { text: string; version: number }>([
    ['1', { text: 'first', version: 1 }],
  ])
  let gets = 0
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional)
  await app.register(restwellCacheControl)
  app.get(
    '/notes/:id',
    { config: { cache: { public: true, maxAge: 60 }, conditional: { etagField: 'version' } } },
    async (request) => {
      gets++
      return notes.get((request.params as { id: string }).id)
    },
  )
  for (const method of ['PUT', 'DELETE'] as const) {
    app.route({
      method,
      url: '/notes/:id',
      handler: async (request, reply) => {
        const id = (request.params as { id: string }).id
        if (method === 'DELETE') {
          notes.set(id, { text: 'deleted', version: (notes.get(id)?.version ?? 0) + 1 })
          return reply.code(204).send()
        }
        const note = {
          text: (request.body as { text: string }).text,
          version: (notes.get(id)?.version ?? 0) + 1,
        }
        notes.set(id, note)
        return note
      },
    })
  }
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port: appPort } = app.server.address() as { port: number }
  const squid = await startSquid(appPort)
  t.teardown(async () => {
    await squid.stop()
    await app.close()
  })
  const base = `http://127.0.0.1:${squid.port}`
  const read = async () => {
    const res = await fetch(`${base}/notes/1`)
    return {
      status: res.status,
      body: (await res.json()) as { text: string },
      cache: res.headers.get('cache-control'),
    }
  }

  const first = await read()
  t.equal(first.status, 200)
  t.equal(first.body.text, 'first')
  t.equal(first.cache, 'public, max-age=60')
  t.equal(gets, 1)
  const second = await read()
  t.equal(second.body.text, 'first')
  t.equal(gets, 1, 'the second GET is served by the cache')

  const put = await fetch(`${base}/notes/1`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'second' }),
  })
  t.equal(put.status, 200)
  t.equal(put.headers.get('cache-control'), 'no-store', 'writes are never stored')
  const afterPut = await read()
  t.equal(afterPut.body.text, 'second', 'the write is seen at once: the stored GET was invalidated')
  t.equal(gets, 2)
  await read()
  t.equal(gets, 2, 'and the fresh answer is cached again')

  const del = await fetch(`${base}/notes/1`, { method: 'DELETE' })
  t.equal(del.status, 204)
  const afterDelete = await read()
  t.equal(afterDelete.body.text, 'deleted')
  t.equal(gets, 3)
})
