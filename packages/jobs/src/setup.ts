/**
 * What `@restwell/jobs` sets on Fastify once per registration: the store (memory or BullMQ),
 * `app.jobs`, `reply.accepted`, the status and result routes, and the worker started at ready
 * and stopped at close.
 */
import { randomUUID } from 'node:crypto'
import { OptionsError } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'
import { type JobRegistry, jobsApi, PLUGIN, storeCall } from './api.js'
import { bullmqBackend } from './bullmq.js'
import { toDuration } from './duration.js'
import { memoryBackend } from './memory-store.js'
import type { ResolvedJobsOptions } from './options.js'
import { accepted, addJobRoutes } from './routes.js'
import type { JobBackend } from './types.js'

/** The estimate of a job defined without one; an `OptionsError` for an invalid one. */
function defaultEstimate(options: ResolvedJobsOptions): string {
  try {
    return toDuration(options.estimatedTime)
  } catch (error) {
    throw new OptionsError(PLUGIN, 'estimatedTime', `is invalid: ${(error as Error).message}`)
  }
}

/** The store of the jobs: in memory, or on BullMQ (Redis). */
function openBackend(
  fastify: FastifyInstance,
  options: ResolvedJobsOptions,
  registry: JobRegistry,
): JobBackend | Promise<JobBackend> {
  if (options.store === 'memory') {
    return memoryBackend(
      {
        instance: randomUUID(),
        worker: options.worker,
        concurrency: options.concurrency,
        pollMs: options.pollMs,
        ttlMs: options.ttlMs,
        closeTimeoutMs: options.closeTimeoutMs,
      },
      registry.handlers,
      fastify.log,
    )
  }
  return bullmqBackend(
    {
      ...options.store,
      worker: options.worker,
      timeoutMs: options.timeoutMs,
      closeTimeoutMs: options.closeTimeoutMs,
      retryMs: options.pollMs,
    },
    registry.handlers,
    (name) => registry.estimates.get(name) ?? registry.defaultEstimate,
    fastify.log,
  )
}

/** Sets the plugin up on `fastify`; returns the registry of the jobs defined. */
export async function setupJobs(
  fastify: FastifyInstance,
  options: ResolvedJobsOptions,
): Promise<JobRegistry> {
  const registry: JobRegistry = {
    handlers: new Map(),
    estimates: new Map(),
    defaultEstimate: defaultEstimate(options),
  }
  const backend = await openBackend(fastify, options, registry)
  const call = storeCall(options)
  const base = `${fastify.prefix}${options.basePath}`
  fastify.decorate('jobs', jobsApi(registry, backend, call, base))
  fastify.decorateReply('accepted', accepted)
  addJobRoutes(fastify, options, { backend, call, base })
  fastify.addHook('onReady', async () => backend.start())
  fastify.addHook('onClose', async () => backend.close())
  return registry
}
