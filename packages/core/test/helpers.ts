/** Fastify apps for the tests of this package, closed when the test file ends. */
import Fastify, { type FastifyInstance } from 'fastify'
import tap from 'tap'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

/** A fresh Fastify app, closed at teardown. */
export function app(): FastifyInstance {
  const fastify = Fastify()
  apps.push(fastify)
  return fastify
}
