/** Spawns a throwaway redis-server on a free loopback port (no persistence) for the tests. */
import { type ChildProcess, spawn } from 'node:child_process'
import { createConnection, createServer } from 'node:net'

export interface RedisServer {
  port: number
  url: string
  stop(): Promise<void>
  start(): Promise<void>
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      )
      const end = Date.now() + 5000
      while (!(await reachable(port))) {
        if (Date.now() > end) throw new Error(`redis-server did not start on port ${port}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    async stop() {
      const running = child
      child = undefined
      if (running === undefined || running.exitCode !== null) return
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve())
        running.kill('SIGKILL')
      })
    },
  }
  await server.start()
  return server
}
