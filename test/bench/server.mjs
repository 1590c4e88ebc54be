// Child process: builds one server, listens on 127.0.0.1:0 and talks to the parent over IPC.
//   -> { type: 'ready', port, expect, info, rssReady }
//   <- { type: 'cpu' }   -> { type: 'cpu', usage: process.cpuUsage() }
//   <- { type: 'stop' }  -> { type: 'stopped', rssPeak } then exit 0
// Peak RSS is the kernel's high-water mark (VmHWM), read once at the end: no sampling timer
// runs in the server while it is measured. Where /proc is missing, a 250 ms sampler is used.
import { readFileSync } from 'node:fs'

const [file, variant] = process.argv.slice(2)

function highWaterMark() {
  try {
    const status = readFileSync('/proc/self/status', 'utf8')
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status)
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

let sampled = 0
let sampler
if (highWaterMark() === undefined) {
  sampler = setInterval(() => {
    sampled = Math.max(sampled, process.memoryUsage.rss())
  }, 250)
  sampler.unref()
}

function fail(error) {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
  if (process.send) process.send({ type: 'error', message }, () => process.exit(1))
  else {
    console.error(message)
    process.exit(1)
  }
}

try {
  const mod = await import(new URL(`./servers/${file}.mjs`, import.meta.url))
  const server = await mod.build(variant)
  const port = await server.listen()
  const ready = {
    type: 'ready',
    port,
    pid: process.pid,
    expect: server.expect,
    info: server.info ?? {},
    rssReady: process.memoryUsage.rss(),
  }
  if (!process.send) {
    console.log(JSON.stringify(ready))
  } else {
    process.send(ready)
    process.on('message', async (message) => {
      // The parent reads the CPU time spent between two points (the measured window).
      if (message?.type === 'cpu') return process.send({ type: 'cpu', usage: process.cpuUsage() })
      if (message?.type !== 'stop') return
      const rssPeak = Math.max(highWaterMark() ?? 0, sampled, process.memoryUsage.rss())
      await server.close()
      if (sampler) clearInterval(sampler)
      // exit through the normal path so --cpu-prof writes its profile
      process.send({ type: 'stopped', rssPeak }, () => process.exit(0))
    })
    process.on('disconnect', () => process.exit(0))
  }
} catch (error) {
  fail(error)
}
