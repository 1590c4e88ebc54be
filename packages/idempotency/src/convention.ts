/** The idempotency convention: `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header). */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import { describeRoute } from './describe.js'
import {
  type IdempotencyOptions,
  IdempotencyOptionsSchema,
  type IdempotencyRouteConfig,
  IdempotencyRouteConfigSchema,
  resolveIdempotencyOptions,
} from './options.js'
import { KEY_HEADER } from './key.js'
import { routeSettings, setupIdempotency } from './setup.js'
import { captureAnswer, lookUpKey, markingHandler, PLUGIN } from './steps.js'

/** The header that marks a replayed answer. */
const REPLAYED_HEADER = 'Idempotent-Replayed'

/**
 * On the routes that take a key (`config.idempotency`, or every POST and PATCH with
 * `everyRoute`): the first request with a key runs and its answer is stored; a retry with the
 * same key gets that answer again, byte for byte, without running the handler; a retry while
 * the first still runs is 409, the key with another request 422, a malformed key 400.
 */
export const idempotency = defineConvention({
  name: 'idempotency',
  plugin: PLUGIN,
  phases: ['beforeHandler', 'send'],
  options: (raw: IdempotencyOptions) =>
    resolveIdempotencyOptions(validateOptions(PLUGIN, IdempotencyOptionsSchema, raw)),
  routeConfig: (raw: unknown, where: string): IdempotencyRouteConfig =>
    raw === true ? {} : validateOptions(where, IdempotencyRouteConfigSchema, raw),
  setup: setupIdempotency,
  route: (context, settings) => {
    const route = routeSettings(context, settings)
    if (route === undefined) return undefined
    markingHandler(context.route)
    return { beforeHandler: lookUpKey(route), send: captureAnswer }
  },
  contributes: () => ({
    requestHeaders: [KEY_HEADER],
    responseHeaders: [REPLAYED_HEADER],
  }),
  // A replay is only ever an answer of a route that takes a key.
  routeResponseHeaders: (context, settings) =>
    routeSettings(context, settings) === undefined ? [] : [REPLAYED_HEADER],
  describe: (context, settings) => {
    const route = routeSettings(context, settings)
    return route === undefined ? undefined : describeRoute(route)
  },
  // Alone, the key is looked at before the route's own preHandler hooks (a replay meets no
  // precondition of @restwell/conditional), the answer captured after its onSend hooks.
  alone: { beforeHandler: 'first', send: 'last' },
})
