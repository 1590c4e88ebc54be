/** The umbrella plugin: registers every restwell convention in the right order. */
import fastifyCompress from '@fastify/compress'
import fastifyCors from '@fastify/cors'
import fastifyRateLimit from '@fastify/rate-limit'
import fastifyUnderPressure from '@fastify/under-pressure'
import restwellErrors, { validateOptions } from '@restwell/errors'
import restwellConditional from '@restwell/conditional'
import restwellMethods from '@restwell/methods'
import restwellPagination from '@restwell/pagination'
import restwellPatch from '@restwell/patch'
import restwellSoftDelete from '@restwell/soft-delete'
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { compressOptions } from './compress.js'
import { corsOptions } from './cors.js'
import { type RestwellOptions, RestwellOptionsSchema } from './options.js'
import { underPressureOptions } from './overload.js'
import { rateLimitHook, rateLimitPluginOptions } from './rate-limit.js'

const plugin: FastifyPluginAsync<RestwellOptions> = async (fastify, rawOptions) => {
  const options = validateOptions('restwell', RestwellOptionsSchema, rawOptions) as RestwellOptions

  // 1. errors first: every later plugin's errors, and Fastify's, go out in one form.
  if (options.errors !== false) await fastify.register(restwellErrors, options.errors ?? {})

  // 2. CORS: its onRequest hook adds the headers to every answer (errors included) and
  //    answers a preflight before rate limits and auth see it.
  if (options.cors !== false) {
    await fastify.register(
      fastifyCors,
      corsOptions(options.cors ?? {}, { extraAllowedHeaders: [] }),
    )
  }

  // 3. overload: shed load before doing any other work.
  if (options.underPressure !== false) {
    await fastify.register(fastifyUnderPressure, underPressureOptions(options.underPressure ?? {}))
  }

  // 4. rate limits: one root onRequest hook, before auth and before the body is read.
  if (options.rateLimit !== false) {
    const settings = options.rateLimit ?? {}
    await fastify.register(fastifyRateLimit, rateLimitPluginOptions(settings))
    fastify.addHook('onRequest', rateLimitHook(fastify, settings))
  }

  // 5. methods: 405/OPTIONS/501 on the not-found path only.
  if (options.methods !== false) await fastify.register(restwellMethods, options.methods ?? {})

  // 6. conditional before compress: its first onSend hashes the identity bytes and decides
  //    304/412/206; its second, after compression, gives each content-coding its own ETag.
  if (options.conditional !== false) {
    await fastify.register(restwellConditional, options.conditional ?? {})
  }
  if (options.compress !== false) {
    await fastify.register(fastifyCompress, compressOptions(options.compress ?? {}))
  }

  // 7. patch: its parsers and route setup; preconditions (conditional's preHandler) run first.
  if (options.patch !== false) await fastify.register(restwellPatch, options.patch ?? {})

  // 8. collections: pagination and soft delete set up the routes that ask for them.
  if (options.pagination !== false) {
    await fastify.register(restwellPagination, options.pagination ?? {})
  }
  if (options.softDelete !== false) {
    await fastify.register(restwellSoftDelete, options.softDelete ?? {})
  }
}

/** Registers every restwell plugin with the spec's defaults; `{ <plugin>: false }` turns one off. */
export const restwell: FastifyPluginAsync<RestwellOptions> = fp(plugin, {
  fastify: '5.x',
  name: 'restwell',
})
