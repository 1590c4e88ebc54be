/** What negotiation does on one route, decided when the route is added. */
import type { RouteContext, RouteSteps } from '@restwell/core'
import { addRouteHook, schemaAccess } from '@restwell/core/internal'
import { checkFormParsers, describeFormBodies } from './bodies.js'
import { sendStep } from './headers.js'
import { negotiationMultipart } from './multipart.js'
import { negotiationStep } from './negotiate.js'
import { MULTIPART, type NegotiationRouteConfig } from './options.js'
import { serializeStep } from './serialize.js'
import {
  type NegotiationSettings,
  PLUGIN,
  routeSettings,
  serializesOtherThanJson,
} from './settings.js'

/**
 * The route's steps: negotiation before the body is read, a serializer where it produces
 * another type than JSON this plugin writes, `Vary` and `Content-Language` on what is sent.
 * A route listing form types no parser reads is refused; its form bodies are described for
 * OpenAPI, and a multipart route gets its parts read into the body (`attachBody`).
 */
export function negotiationRoute(
  { route, instance, methods, config, name }: RouteContext<NegotiationRouteConfig>,
  plugin: NegotiationSettings,
): RouteSteps<'beforeBody' | 'serialize' | 'send' | 'notFoundSend'> {
  const where = `${PLUGIN} route ${name}`
  const settings = routeSettings(plugin, config ?? {}, { route, instance, methods, where })
  const consumed = [...(settings.consumes ?? [])]
  if (settings.acceptQuery !== undefined) plugin.queries.values.set(route, settings.acceptQuery)
  checkFormParsers(instance, where, consumed)
  const { multipart, versionParam } = plugin.options
  const attachBody = multipart !== false && multipart.attachBody
  describeFormBodies(route, consumed, schemaAccess(instance, route), attachBody)
  if (attachBody && settings.consumes?.has(MULTIPART)) {
    addRouteHook(route, 'preValidation', negotiationMultipart, 'first')
  }
  return {
    beforeBody: negotiationStep(plugin, settings),
    ...(serializesOtherThanJson(settings)
      ? { serialize: serializeStep(settings, versionParam) }
      : {}),
    send: sendStep(settings),
  }
}
