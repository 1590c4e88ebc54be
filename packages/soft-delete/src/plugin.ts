/** The `@restwell/soft-delete` plugin: soft and hard DELETE, hidden deleted items, 410, restore. */
import { ErrorCode, httpErrors, validateOptions } from '@restwell/errors'
import {
  onEveryRoute,
  PAGE,
  type PageInfo,
  pageOf,
  registerOnce,
  type RequestStep,
  schemaAccess,
  type SendStep,
  type SerializeStep,
  servedMethods,
  useRouteStep,
  routeName,
} from '@restwell/core'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  onRouteHookHandler,
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
  representAll,
  restore,
} from './resource.js'
import { withInclusionParam } from './schema.js'

const PLUGIN = '@restwell/soft-delete'

const plugin: FastifyPluginAsync<SoftDeleteOptions> = async (fastify, rawOptions) => {
  registerOnce(fastify, '@restwell/soft-delete', 'softDelete')
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

  const readRequest: RequestStep = function readRequest(request) {
    request.softDelete = {
      include: readInclusion(
        request.query as Record<string, unknown>,
        options.param,
        options.includeParam,
      ),
      restore: false,
    }
    return undefined
  }

  const detectRestore: RequestStep = function detectRestore(request) {
    // Set by readRequest, which runs first on every route this hook is on.
    ;(request.softDelete as { restore: boolean }).restore = isRestoreBody(request.body)
    return undefined
  }

  const onRoute: onRouteHookHandler = function (this: FastifyInstance, routeOptions) {
    const raw = routeOptions.config?.softDelete
    if (raw === undefined || raw === false) return
    const config =
      raw === true
        ? {}
        : validateOptions(
            `${PLUGIN} (config.softDelete of ${routeName(routeOptions)})`,
            RouteConfigSchema,
            raw,
          )
    const mode = config.mode ?? options.mode
    const gone = config.gone ?? options.gone
    const filterArrays = config.filterArrays ?? options.filterArrays
    const methods = new Set(servedMethods(routeOptions))

    /** The body a 2xx reply sends; throws the error to answer instead. */
    const shapeBody = (request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown => {
      const method = request.method
      if (Array.isArray(payload)) {
        const include = (request.softDelete as { include: 'active' | 'all' | 'deleted' }).include
        return representAll(
          filterArrays && (method === 'GET' || method === 'HEAD')
            ? filterDeleted(payload, include)
            : payload,
        )
      }
      const page = pageOf(reply)
      if (page !== undefined) {
        // A page from @restwell/pagination: its items as `reply[PAGE]` (what negotiation's HAL,
        // JSON:API and Siren envelopes are built from) and as the `data` of the JSON envelope.
        // Not filtered: the handler filters the query, so that counts and links stay right.
        const items = representAll(page.items)
        if (items !== page.items) (reply as { [PAGE]?: PageInfo })[PAGE] = { ...page, items }
        // Arrays were handled above: an object here is the `{ data, meta, links }` envelope.
        const envelope = payload as { data?: unknown } | null
        if (typeof envelope === 'object' && envelope !== null && Array.isArray(envelope.data)) {
          const data = representAll(envelope.data)
          return data === envelope.data ? envelope : { ...envelope, data }
        }
      }
      // Only a 200 (Fastify's default status) claims the delete was enacted with the resource
      // as its representation (RFC 9110 §9.3.5). Any other 2xx the handler chose itself, such
      // as a 202 for a delete queued as a job, is sent as it is.
      if (
        method === 'DELETE' &&
        mode === 'soft' &&
        reply.statusCode === 200 &&
        !isDeleted(payload)
      ) {
        throw new Error(
          `${PLUGIN}: a soft DELETE handler must send the soft-deleted resource (use markDeleted)`,
        )
      }
      if (
        gone &&
        (method === 'GET' || method === 'HEAD') &&
        request.softDelete?.include === 'active' &&
        isDeleted(payload)
      ) {
        const at = represent(payload as object) as { deletedAt: string }
        return httpErrors.gone(`The resource was deleted at ${at.deletedAt}`, {
          code: ErrorCode.RESOURCE_DELETED,
        })
      }
      return represent(payload)
    }

    const shape: SerializeStep = function shape(request, reply, payload) {
      // Only 2xx bodies are resources; error bodies and redirects pass untouched.
      if (reply.statusCode >= 300) return undefined
      return shapeBody(request, reply, payload)
    }

    // Described for OpenAPI only where Fastify's own validator reads it: a Zod or other type
    // provider's compiler would be handed this JSON Schema and fail on every request. The
    // parameter is read from the raw query (readRequest) either way.
    if (
      (methods.has('GET') || methods.has('HEAD')) &&
      schemaAccess(this, routeOptions).validation
    ) {
      routeOptions.schema = withInclusionParam(routeOptions.schema, options.param)
    }
    useRouteStep(this, routeOptions, 'onRequest', 'softDelete', readRequest, { where: 'first' })
    // First, so every later hook (negotiation's HAL, JSON:API, Siren and XML serializers, which
    // turn the payload into text, conditional's validators) sees the body as it is sent, in
    // whichever order the plugins were registered.
    useRouteStep(this, routeOptions, 'preSerialization', 'softDelete', shape, {
      where: 'first',
      hookName: 'shape',
    })
    if (methods.has('PATCH')) {
      useRouteStep(this, routeOptions, 'preHandler', 'softDelete', detectRestore, {
        where: 'first',
        hookName: 'detectRestore',
      })
    }
    if (mode === 'hard' && methods.has('DELETE')) {
      const noContent: SendStep = function noContent(request, reply) {
        // A 200 becomes 204; any other status (a 202 for a queued delete, errors) is kept.
        if (request.method !== 'DELETE' || reply.statusCode !== 200) return undefined
        reply.code(204)
        // Headers that described the dropped body (set by the handler, or by an instance-wide
        // onSend hook, which Fastify runs before the route's): a 204 has no content to measure
        // or encode (RFC 9110 §8.6, §8.4), and Fastify sends a null body's headers as they are.
        reply.removeHeader('content-length')
        reply.removeHeader('content-encoding')
        return null
      }
      // First among the route's onSend hooks, whatever the registration order: conditional's,
      // compression and the route's own hooks then see the 204 with no body.
      useRouteStep(this, routeOptions, 'onSend', 'softDelete', noContent, { where: 'first' })
    }
  }
  onEveryRoute(fastify, onRoute)
}

/** The `@restwell/soft-delete` plugin. */
export const restwellSoftDelete: FastifyPluginAsync<SoftDeleteOptions> = fp(plugin, {
  fastify: '5.x',
  name: PLUGIN,
})
