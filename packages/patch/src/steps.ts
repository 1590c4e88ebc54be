/**
 * The steps of patch: the 415 of a patch request in no format its route takes (before the body
 * is read), and on what is sent, `Accept-Patch` on an OPTIONS 2xx or a 405 and a 204 for a
 * route that answers so.
 */
import type { RequestStep, SendStep } from '@restwell/core'
import { ErrorCode, httpErrors } from '@restwell/errors'
import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  ACCEPT_PATCH_BY_MASK,
  FORMATS_BY_MASK,
  type PatchFormat,
  patchFormatOf,
} from './content-type.js'
import { show } from './errors.js'
import { type PatchRequest, ROUTE } from './request.js'
import type { PatchSettings, RouteSettings } from './settings.js'

/** The formats of the patch route `url` reaches, as a mask (0: none). */
function maskFor(plugin: PatchSettings, url: string): number {
  let mask = 0
  for (const route of plugin.routes.find('PATCH', url) ?? []) mask |= plugin.masks.get(route) ?? 0
  return mask
}

/** The `Accept-Patch` value of the path `url` names, undefined where no patch route is. */
export function acceptPatchFor(plugin: PatchSettings, url: string): string | undefined {
  return ACCEPT_PATCH_BY_MASK[maskFor(plugin, url)]
}

/** The formats the path `url` names accepts (a fresh list). */
export function formatsFor(plugin: PatchSettings, url: string): PatchFormat[] {
  return [...(FORMATS_BY_MASK[maskFor(plugin, url)] as readonly PatchFormat[])]
}

/**
 * The 415 (with `Accept-Patch`) of a patch request whose `Content-Type` names no format the
 * route takes; the route's settings are kept on the request for its body parser. `onlyPatch`:
 * a route for several methods is a patch route for its PATCH requests only.
 */
export function checkContentType(settings: RouteSettings, onlyPatch: boolean): RequestStep {
  return function checkContentType(request) {
    if (onlyPatch && request.method !== 'PATCH') return undefined
    ;(request as PatchRequest)[ROUTE] = settings
    const given = request.headers['content-type']
    const format = patchFormatOf(given)
    if (format !== undefined && settings.formats.includes(format)) return undefined
    return httpErrors.unsupportedMediaType(
      given === undefined
        ? `A patch needs a Content-Type: ${settings.acceptPatch}`
        : `Content-Type ${show(given)} is not a patch format this route accepts: ${settings.acceptPatch}`,
      {
        code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        details: [{ field: 'headers/content-type', message: `expected ${settings.acceptPatch}` }],
        headers: { 'accept-patch': settings.acceptPatch },
      },
    )
  }
}

/**
 * `Accept-Patch` on an OPTIONS 2xx and a 405 of a path with a patch route, unless set. An
 * OPTIONS answered with an error (a 401 of auth's hideRoutes) describes no resource.
 */
function advertise(plugin: PatchSettings, request: FastifyRequest, reply: FastifyReply): void {
  const status = reply.statusCode
  if (status !== 405 && (status >= 300 || request.method !== 'OPTIONS')) return
  if (reply.hasHeader('accept-patch')) return
  const value = acceptPatchFor(plugin, request.url)
  if (value !== undefined) reply.header('accept-patch', value)
}

/** The send step of the answers of no route (a 405, an automatic OPTIONS): `Accept-Patch`. */
export function notFoundSend(plugin: PatchSettings): SendStep {
  return function advertiseAcceptPatch(request, reply) {
    advertise(plugin, request, reply)
    return undefined
  }
}

/** A 200 made a 204 No Content, without the headers of the body it drops. */
export function noContent(reply: FastifyReply): null | undefined {
  if (reply.statusCode !== 200) return undefined
  reply.code(204)
  reply.removeHeader('content-type')
  reply.removeHeader('content-length')
  return null
}

/** What the send step of a route does, decided when the route is added. */
export interface SendPlan {
  /** `Accept-Patch` on its OPTIONS 2xx and 405 answers (the plugin's settings), or not. */
  readonly advertise: PatchSettings | undefined
  /** A 200 becomes a 204 (`status: 204`) on the requests it patches. */
  readonly noContent: boolean
  /** Only its PATCH requests are patched (a route for several methods). */
  readonly onlyPatch: boolean
}

/** The route's send step: `Accept-Patch`, then the 204 of a patch route that answers so. */
export function sendStep(plan: SendPlan): SendStep {
  const { advertise: plugin, noContent: empty, onlyPatch } = plan
  return function patch(request, reply) {
    if (plugin !== undefined) advertise(plugin, request, reply)
    if (!empty || (onlyPatch && request.method !== 'PATCH')) return undefined
    return noContent(reply)
  }
}
