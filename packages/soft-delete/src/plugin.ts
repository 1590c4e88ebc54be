/** The `@restwell/soft-delete` plugin: soft and hard DELETE, hidden deleted items, 410, restore. */
import { asList, ErrorCode, httpErrors, onEveryRoute, validateOptions } from '@restwell/errors'
import type {
  FastifyPluginAsync,
  FastifyReply,
  onRequestHookHandler,
  onRouteHookHandler,
  onSendHookHandler,
  preHandlerHookHandler,
  preSerializationHookHandler,
} from 'fastify'
import fp from 'fastify-plugin'
import { readInclusion } from './inclusion.js'
import {
  RouteConfigSchema,
  resolveSoftDeleteOptions,
  type SoftDeleteOptions,
  SoftDeleteOptionsSchema,
} from './options.js'
import {
  filterDeleted,
  isDeleted,
  isRestoreBody,
  markDeleted,
  represent,
  restore,
} from './resource.js'
import { withInclusionParam } from './schema.js'

const PLUGIN = '@restwell/soft-delete'

const plugin: FastifyPluginAsync<SoftDeleteOptions> = async (fastify, rawOptions) => {
  const options = resolveSoftDeleteOptions(
    validateOptions(PLUGIN, SoftDeleteOptionsSchema, rawOptions),
  )

  fastify.decorateRequest('softDelete', null)
  fastify.decorateReply(
    'softDeleted',
    function softDeleted(this: FastifyReply, resource: object): FastifyReply {
      return this.code(200).send(markDeleted(resource))
    },
  )
  fastify.decorateReply(
    'restored',
    function restored(this: FastifyReply, resource: object): FastifyReply {
      return this.code(200).send(restore(resource))
    },
  )
  fastify.decorateReply('hardDeleted', function hardDeleted(this: FastifyReply): FastifyReply {
    return this.code(204).send()
  })

  const readRequest: onRequestHookHandler = (request, _reply, done) => {
    request.softDelete = {
      include: readInclusion(
        request.query as Record<string, unknown>,
        options.param,
        options.includeParam,
      ),
      restore: false,
    }
    done()
  }

  const detectRestore: preHandlerHookHandler = (request, _reply, done) => {
    // Set by readRequest, which runs first on every route this hook is on.
    ;(request.softDelete as { restore: boolean }).restore = isRestoreBody(request.body)
    done()
  }

  const onRoute: onRouteHookHandler = (routeOptions) => {
    const raw = routeOptions.config?.softDelete
    if (raw === undefined || raw === false) return
    const config =
      raw === true
        ? {}
        : validateOptions(
            `${PLUGIN} (config.softDelete of ${routeOptions.method} ${routeOptions.url})`,
            RouteConfigSchema,
            raw,
          )
    const mode = config.mode ?? options.mode
    const gone = config.gone ?? options.gone
    const filterArrays = config.filterArrays ?? options.filterArrays
    const methods = new Set(asList(routeOptions.method))

    const shape: preSerializationHookHandler<unknown> = (request, reply, payload, done) => {
      const method = request.method
      // Only 2xx bodies are resources; error bodies and redirects pass untouched.
      if (reply.statusCode >= 300) return done(null, payload)
      if (Array.isArray(payload)) {
        const include = (request.softDelete as { include: 'active' | 'all' | 'deleted' }).include
        return done(
          null,
          filterArrays && (method === 'GET' || method === 'HEAD')
            ? filterDeleted(payload, include)
            : payload,
        )
      }
      if (method === 'DELETE' && mode === 'soft' && !isDeleted(payload)) {
        return done(
          new Error(
            `${PLUGIN}: a soft DELETE handler must send the soft-deleted resource (use markDeleted)`,
          ),
        )
      }
      if (
        gone &&
        (method === 'GET' || method === 'HEAD') &&
        request.softDelete?.include === 'active' &&
        isDeleted(payload)
      ) {
        const at = represent(payload as object) as { deletedAt: string }
        return done(
          httpErrors.gone(`The resource was deleted at ${at.deletedAt}`, {
            code: ErrorCode.RESOURCE_DELETED,
          }),
        )
      }
      try {
        done(null, represent(payload))
      } catch (error) {
        done(error as Error)
      }
    }

    if (methods.has('GET') || methods.has('HEAD')) {
      routeOptions.schema = withInclusionParam(routeOptions.schema, options.param)
    }
    routeOptions.onRequest = [readRequest, ...asList(routeOptions.onRequest)]
    routeOptions.preSerialization = [...asList(routeOptions.preSerialization), shape]
    if (methods.has('PATCH')) {
      routeOptions.preHandler = [detectRestore, ...asList(routeOptions.preHandler)]
    }
    if (mode === 'hard' && methods.has('DELETE')) {
      const noContent: onSendHookHandler<unknown> = (request, reply, payload, done) => {
        if (request.method !== 'DELETE' || reply.statusCode >= 300) return done(null, payload)
        reply.code(204)
        done(null, null)
      }
      routeOptions.onSend = [...asList(routeOptions.onSend), noContent]
    }
  }
  onEveryRoute(fastify, onRoute)
}

/** The `@restwell/soft-delete` plugin. */
export const restwellSoftDelete: FastifyPluginAsync<SoftDeleteOptions> = fp(plugin, {
  fastify: '5.x',
  name: PLUGIN,
})
