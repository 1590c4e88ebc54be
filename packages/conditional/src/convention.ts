/** The conditional convention: validators, preconditions (304/412/428) and byte ranges (206/416). */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import type { ConditionalRouteConfig } from './augment.js'
import {
  type ConditionalOptions,
  ConditionalOptionsSchema,
  RouteConfigSchema,
  resolveConditionalOptions,
} from './options.js'
import { describeConditional } from './describe.js'
import { conditionalRoute, NAME, setupConditional } from './steps.js'

/**
 * ETag and Last-Modified on reads (RFC 9110 §8.8), their preconditions evaluated once (304, 412,
 * 428; §13), byte ranges (206, 416; §14): on every GET, HEAD and write route, `config.conditional`
 * tuning or turning it off. A 304's and a HEAD's metadata rule ends the send phase.
 */
export const conditional = defineConvention({
  name: 'conditional',
  plugin: NAME,
  phases: ['beforeHandler', 'serialize', 'send'],
  options: (raw: ConditionalOptions | undefined) =>
    resolveConditionalOptions(validateOptions(NAME, ConditionalOptionsSchema, raw)),
  routeConfig: (raw: unknown, where: string) =>
    validateOptions(where, RouteConfigSchema, raw) as ConditionalRouteConfig,
  setup: setupConditional,
  route: conditionalRoute,
  describe: describeConditional,
  // Alone, a HEAD route's send hook comes before Fastify's, which drops the body.
  alone: { send: (methods) => (methods.includes('HEAD') ? 'first' : 'last') },
})
