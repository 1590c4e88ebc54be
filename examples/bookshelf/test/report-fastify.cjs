// Preloaded (`node --require`) into the worker process by worker.test.ts: at exit, prints how
// many copies of Fastify's core module were loaded (an ES import of a CommonJS package goes
// through `require.cache` too). The worker imports no Fastify: 0.
process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((file) =>
    /[\\/]fastify[\\/]fastify\.js$/.test(file),
  )
  process.stdout.write(`FASTIFY-LOADED ${loaded.length}\n`)
})
