/** The umbrella plugin: registers every restwell convention in the right order. */
import restwellErrors, { validateOptions } from '@restwell/errors'
import restwellMethods from '@restwell/methods'
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { type RestwellOptions, RestwellOptionsSchema } from './options.js'

const plugin: FastifyPluginAsync<RestwellOptions> = async (fastify, rawOptions) => {
  const options = validateOptions('restwell', RestwellOptionsSchema, rawOptions) as RestwellOptions
  // 1. errors first: every later plugin's errors, and Fastify's, go out in one form.
  if (options.errors !== false) await fastify.register(restwellErrors, options.errors ?? {})
  // 2. methods: 405/OPTIONS/501 on the not-found path only.
  if (options.methods !== false) await fastify.register(restwellMethods, options.methods ?? {})
}

/** Registers every restwell plugin with the spec's defaults; `{ <plugin>: false }` turns one off. */
export const restwell: FastifyPluginAsync<RestwellOptions> = fp(plugin, {
  fastify: '5.x',
  name: 'restwell',
})
