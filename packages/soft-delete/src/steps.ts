/**
 * The steps of soft delete on one route: the inclusion read before the body, a restore told apart
 * before the handler, the body shaped before serialization, a hard DELETE's 200 made a 204.
 */
import { type PageInfo, pageOf, type RequestStep, type SendStep } from '@restwell/core'
import { PAGE, VALIDATED_METHODS } from '@restwell/core/internal'
import { ErrorCode, httpErrors } from '@restwell/errors'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { readInclusion } from './inclusion.js'
import type { ResolvedSoftDeleteOptions } from './options.js'
import {
  filterDeleted,
  isDeleted,
  isRestoreBody,
  markDeleted,
  represent,
  representAll,
  restore,
} from './resource.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/soft-delete'

/** One route's settings: the plugin's options with the route's `config.softDelete` over them. */
export interface RouteSettings {
  readonly mode: 'soft' | 'hard'
  readonly gone: boolean
  readonly filterArrays: boolean
}

/** Decorates requests with `softDelete` and replies with `softDeleted`, `restored`, `hardDeleted`. */
export function setupSoftDelete(
  fastify: FastifyInstance,
  options: ResolvedSoftDeleteOptions,
): ResolvedSoftDeleteOptions {
  fastify.decorateRequest('softDelete', null)
  fastify.decorateReply('softDeleted', function softDeleted(this: FastifyReply, resource: object) {
    return this.code(200).send(markDeleted(resource))
  })
  fastify.decorateReply('restored', function restored(this: FastifyReply, resource: object) {
    return this.code(200).send(restore(resource))
  })
  fastify.decorateReply('hardDeleted', function hardDeleted(this: FastifyReply) {
    return this.code(204).send()
  })
  return options
}

/** Reads which items the request shows (`?deleted=`, `?include=deleted`) before anything else. */
export function readRequest(options: ResolvedSoftDeleteOptions): RequestStep {
  return function readRequest(request) {
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
}

/** A PATCH whose body is `{"deleted": false}` restores the item. */
export const detectRestore: RequestStep = function detectRestore(request) {
  // Set by readRequest, which runs first on every route this step is on.
  ;(request.softDelete as { restore: boolean }).restore = isRestoreBody(request.body)
  return undefined
}

/** The body a 2xx reply sends; throws the error to answer instead. */
function shapeBody(
  settings: RouteSettings,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): unknown {
  const method = request.method
  if (Array.isArray(payload)) {
    const include = (request.softDelete as { include: 'active' | 'all' | 'deleted' }).include
    return representAll(
      // A QUERY's answer is a listing like a GET's (RFC 10008 §2), so it hides the same items.
      settings.filterArrays && VALIDATED_METHODS.has(method)
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
  // Only a 200 (Fastify's default status) claims the delete was enacted with the resource as
  // its representation (RFC 9110 §9.3.5); another 2xx (a 202 for a queued delete) is sent as is.
  if (
    method === 'DELETE' &&
    settings.mode === 'soft' &&
    reply.statusCode === 200 &&
    !isDeleted(payload)
  ) {
    throw new Error(
      `${PLUGIN}: a soft DELETE handler must send the soft-deleted resource (use markDeleted)`,
    )
  }
  if (
    settings.gone &&
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

/** Shapes a 2xx body (`deleted` + `deletedAt`, hidden items); error bodies and redirects pass. */
export function shape(settings: RouteSettings): SendStep {
  return function shape(request, reply, payload) {
    if (reply.statusCode >= 300) return undefined
    return shapeBody(settings, request, reply, payload)
  }
}

/** A hard DELETE's 200 becomes a 204 without a body; any other status is kept. */
export const noContent: SendStep = function noContent(request, reply) {
  if (request.method !== 'DELETE' || reply.statusCode !== 200) return undefined
  reply.code(204)
  // Headers that described the dropped body (set by the handler, or by an instance-wide onSend
  // hook, which Fastify runs before the route's): a 204 has no content to measure or encode
  // (RFC 9110 §8.6, §8.4), and Fastify sends a null body's headers as they are.
  reply.removeHeader('content-length')
  reply.removeHeader('content-encoding')
  return null
}
