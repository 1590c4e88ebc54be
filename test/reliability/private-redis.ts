/**
 * A private redis-server this test owns, so it can kill and restart it on the same port (the
 * shared REDIS_URL server of CI must not be stopped). No persistence: a restart is empty.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createConnection } from 'node:net'
import { freePort } from '../helpers/services.js'

export interface PrivateRedis {
  url: string
  start(): Promise<void>
  /** SIGKILL: the server vanishes without closing connections politely. */
  kill(): Promise<void>
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort()
  let child: ChildProcess | undefined
  return {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {
          stdio: 'ignore',
        },
      )
      child.once('error', () => {})
      const end = Date.now() + 10_000
      while (!(await reachable(port))) {
        if (Date.now() > end) throw new Error(`redis-server did not start on port ${port}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    async kill() {
      const running = child
      child = undefined
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve())
        running.kill('SIGKILL')
      })
    },
  }
}
