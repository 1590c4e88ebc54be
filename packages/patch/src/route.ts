/** What patch does on one route, decided when the route is added. */
import type { RouteContext, RouteSteps } from '@restwell/core'
import { schemaAccess } from '@restwell/core/internal'
import { formatMask } from './content-type.js'
import type { PatchRouteConfig } from './options.js'
import { checkBodyAdmitsJsonPatch, describeBody } from './schema.js'
import { type PatchSettings, routeSettings } from './settings.js'
import { checkContentType, sendStep } from './steps.js'

/** The phases patch has steps in. */
export type PatchPhase = 'beforeBody' | 'send' | 'notFoundSend'

/**
 * The route's steps. A patch route (`config.patch`, or every PATCH route with
 * `everyPatchRoute`) checks the `Content-Type` before its body is read and, with `status: 204`,
 * answers 204; its body is described for OpenAPI, and a body schema that admits no JSON Patch
 * is refused. With `advertise`, every route's OPTIONS 2xx and 405 answers carry `Accept-Patch`.
 */
export function patchRoute(
  { route, instance, methods, config }: RouteContext<PatchRouteConfig>,
  plugin: PatchSettings,
): RouteSteps<PatchPhase> | undefined {
  const { options } = plugin
  const advertise = options.advertise ? plugin : undefined
  const own = config ?? (options.everyPatchRoute && methods.includes('PATCH') ? {} : undefined)
  if (own === undefined) {
    if (advertise === undefined) return undefined
    return { send: sendStep({ advertise, noContent: false, onlyPatch: false }) }
  }
  const settings = routeSettings(plugin, instance, route, own)
  plugin.masks.set(route, formatMask(settings.formats))
  checkBodyAdmitsJsonPatch(instance, route, settings.formats)
  describeBody(route, settings.formats, schemaAccess(instance, route))
  // A route for several methods (PUT and PATCH) is a patch route for its PATCH requests only;
  // a route without PATCH that opted in (a POST) is one for all its methods.
  const onlyPatch = methods.includes('PATCH')
  const noContent = (own.status ?? options.status) === 204
  return {
    beforeBody: checkContentType(settings, onlyPatch),
    ...(advertise === undefined && !noContent
      ? {}
      : { send: sendStep({ advertise, noContent, onlyPatch }) }),
  }
}

/**
 * Whether the route's answers may carry `Accept-Patch`: a patch route's 415, and with
 * `advertise` an OPTIONS 2xx of a route that serves OPTIONS (a path's 405 is an answer of no
 * route).
 */
export function patchRouteHeaders(
  { methods, config }: RouteContext<PatchRouteConfig>,
  plugin: PatchSettings,
): readonly string[] {
  const { options } = plugin
  const patched = config !== undefined || (options.everyPatchRoute && methods.includes('PATCH'))
  return patched || (options.advertise && methods.includes('OPTIONS')) ? [ACCEPT_PATCH] : []
}

/** The header that lists a path's patch formats. */
export const ACCEPT_PATCH = 'Accept-Patch'
