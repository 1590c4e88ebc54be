/** The soft-delete convention: `deleted` + `deletedAt`, soft and hard DELETE, 410, restore. */
import { defineConvention } from '@restwell/core'
import { schemaAccess, VALIDATED_METHODS } from '@restwell/core/internal'
import { validateOptions } from '@restwell/errors'
import {
  RouteConfigSchema,
  type RouteSoftDeleteConfig,
  resolveSoftDeleteOptions,
  type SoftDeleteOptions,
  SoftDeleteOptionsSchema,
} from './options.js'
import { withInclusionParam } from './schema.js'
import { detectRestore, noContent, PLUGIN, readRequest, setupSoftDelete, shape } from './steps.js'

/**
 * Soft delete on the routes that ask for it (`config.softDelete`: `true` or an object): a soft
 * DELETE answers 200 with the deleted resource, a hard one 204; collections hide deleted items
 * unless `?deleted=include`; a deleted item may answer 410; `{"deleted": false}` restores.
 */
export const softDelete = defineConvention({
  name: 'softDelete',
  plugin: PLUGIN,
  phases: ['beforeBody', 'beforeHandler', 'serialize', 'send'],
  options: (raw: SoftDeleteOptions) =>
    resolveSoftDeleteOptions(validateOptions(PLUGIN, SoftDeleteOptionsSchema, raw)),
  routeConfig: (raw: unknown, where: string): RouteSoftDeleteConfig =>
    raw === true ? {} : validateOptions(where, RouteConfigSchema, raw),
  setup: setupSoftDelete,
  route: ({ route, instance, config, methods }, options) => {
    if (config === undefined) return undefined
    const settings = {
      mode: config.mode ?? options.mode,
      gone: config.gone ?? options.gone,
      filterArrays: config.filterArrays ?? options.filterArrays,
    }
    // Described for OpenAPI only where Fastify's own validator reads it: a type provider's
    // compiler would be handed this JSON Schema and fail on every request.
    const read = methods.some((method) => VALIDATED_METHODS.has(method))
    if (read && schemaAccess(instance, route).validation) {
      route.schema = withInclusionParam(route.schema, options.param)
    }
    return {
      beforeBody: readRequest(options),
      ...(methods.includes('PATCH') ? { beforeHandler: detectRestore } : {}),
      serialize: shape(settings),
      ...(settings.mode === 'hard' && methods.includes('DELETE') ? { send: noContent } : {}),
    }
  },
  contributes: (options) => ({
    queryParameters:
      options.includeParam === false ? [options.param] : [options.param, options.includeParam],
  }),
  // Alone, first among the route's own hooks of each phase, whatever the registration order:
  // serializers see the body as it is sent, conditional and compression see a hard DELETE's 204.
  alone: { beforeBody: 'first', beforeHandler: 'first', serialize: 'first', send: 'first' },
})
