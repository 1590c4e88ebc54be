/**
 * The request step of negotiation, before the body is read: the representation and language
 * chosen (`request.negotiated`), or the 300, 400, 406 or 415 to answer instead.
 */
import type { RequestStep } from '@restwell/core'
import { type JsonBodyCheck, MEDIA_TYPE, REPRESENTATION } from '@restwell/core/internal'
import type { HttpError } from '@restwell/errors'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { acceptsUtf8 } from './accept-charset.js'
import { parseAcceptLanguage, pickLanguage } from './accept-language.js'
import type { MediaOffer } from './accept.js'
import { sendChoices } from './choices.js'
import { checkBody } from './consumes.js'
import { preferredOffer } from './preferred.js'
import { charsetNotAcceptable, notAcceptable, unknownFormat } from './refusals.js'
import { type NegotiationSettings, type RouteSettings, SERIALIZED } from './settings.js'

/** Set on a request whose route consumes a form type, for the form parser. */
export const FORM_ROUTE: unique symbol = Symbol('restwell.negotiation.formRoute')
/** The check of JSON types of the request's route, for the JSON parser. */
export const JSON_TYPES: unique symbol = Symbol('restwell.negotiation.jsonTypes')

type Marked = { [FORM_ROUTE]?: true; [JSON_TYPES]?: JsonBodyCheck }

/** Whether the request's route consumes a form type (what the form parser asks). */
export function formRoute(request: FastifyRequest): boolean {
  return (request as Marked)[FORM_ROUTE] === true
}

/** The check of JSON types of the request's route, if any (what the JSON parser asks). */
export function jsonTypesOf(request: FastifyRequest): JsonBodyCheck | undefined {
  return (request as Marked)[JSON_TYPES]
}

/** The offer a `?format=` value names, the 300 it asks for, or the 400/406 of a bad one. */
function formatOffer(
  request: FastifyRequest,
  reply: FastifyReply,
  plugin: NegotiationSettings,
  settings: RouteSettings,
  param: string,
  format: unknown,
): MediaOffer | true | HttpError {
  const { formats, choicesFormat } = plugin.options
  const name = typeof format === 'string' ? format.toLowerCase() : ''
  if (name === choicesFormat) return sendChoices(request, reply, plugin, settings)
  const type = Object.hasOwn(formats, name) ? formats[name] : undefined
  if (type === undefined) return unknownFormat(param, Object.keys(formats))
  return (
    settings.byType.get(type) ??
    notAcceptable(`Format ${name} is not available here`, settings.produces)
  )
}

/** The offer to answer with: `?format=` first, else the 300 the route asks for, else `Accept`. */
function chosenOffer(
  request: FastifyRequest,
  reply: FastifyReply,
  plugin: NegotiationSettings,
  settings: RouteSettings,
): MediaOffer | true | HttpError {
  const param = plugin.options.formatParam
  const query = request.query as Record<string, unknown> | null
  const format =
    param === false || query === null || typeof query !== 'object' ? undefined : query[param]
  if (format !== undefined) {
    return formatOffer(request, reply, plugin, settings, param as string, format)
  }
  if (settings.choices) return sendChoices(request, reply, plugin, settings)
  const preferred = preferredOffer(request, plugin, settings)
  return (
    preferred ??
    notAcceptable(
      `None of the accepted media types is available; use one of: ${settings.produces}`,
      settings.produces,
    )
  )
}

/**
 * What tells `type` in `language` apart from the route's default representation (see
 * `REPRESENTATION`), made once per type and language.
 */
function representationKey(
  plugin: NegotiationSettings,
  settings: RouteSettings,
  type: string,
  language: string | undefined,
): string | undefined {
  let byLanguage = settings.representations.get(type)
  if (byLanguage === undefined) {
    byLanguage = new Map()
    settings.representations.set(type, byLanguage)
  } else if (byLanguage.has(language)) {
    return byLanguage.get(language)
  }
  // A language is chosen only where the route has a default one.
  const otherLanguage =
    language !== undefined &&
    language.toLowerCase() !== (settings.defaultLanguage as string).toLowerCase()
  const name = plugin.names.get(type) ?? type
  const made = otherLanguage
    ? `${name};${language.toLowerCase().replaceAll('-', '_')}`
    : type === settings.offers[0]!.mediaType
      ? undefined
      : name
  byLanguage.set(language, made)
  return made
}

/** The language of the answer: `Accept-Language`'s pick among the route's, else its default. */
function chosenLanguage(
  request: FastifyRequest,
  settings: RouteSettings,
  fallback: string,
): string {
  const header = request.headers['accept-language']
  return header === undefined
    ? fallback
    : pickLanguage(parseAcceptLanguage(header), settings.languages, fallback)
}

/**
 * Negotiates one request: true when it has answered (300) itself, or the 400, 406 or 415 error
 * to answer with (returned, not thrown: a refusal costs no stack walk).
 */
export function negotiate(
  request: FastifyRequest,
  reply: FastifyReply,
  plugin: NegotiationSettings,
  settings: RouteSettings,
): boolean | HttpError {
  const charsets = request.headers['accept-charset']
  if (charsets !== undefined && !acceptsUtf8(String(charsets))) return charsetNotAcceptable()
  const offer = chosenOffer(request, reply, plugin, settings)
  if (offer === true || offer instanceof Error) return offer
  const type = offer.mediaType
  let language: string | undefined
  if (settings.defaultLanguage !== undefined) {
    language = chosenLanguage(request, settings, settings.defaultLanguage)
    request.language = language
  }
  const refusal =
    settings.consumes === undefined
      ? undefined
      : checkBody(request, settings, settings.consumes, plugin.contentTypes)
  if (refusal !== undefined) return refusal
  if (SERIALIZED.has(type)) (request as { [MEDIA_TYPE]?: string })[MEDIA_TYPE] = type
  const representation = representationKey(plugin, settings, type, language)
  if (representation !== undefined) {
    ;(request as { [REPRESENTATION]?: string })[REPRESENTATION] = representation
  }
  request.negotiated =
    language === undefined
      ? settings.negotiated.get(type)!
      : { type, format: plugin.names.get(type), language, charset: 'utf-8' }
  return false
}

/** The route's request step: its body parsers told what it takes, then `negotiate`. */
export function negotiationStep(plugin: NegotiationSettings, settings: RouteSettings): RequestStep {
  return function negotiation(request, reply) {
    if (settings.forms) (request as Marked)[FORM_ROUTE] = true
    if (settings.jsonTypes !== undefined) (request as Marked)[JSON_TYPES] = settings.jsonTypes
    return negotiate(request, reply, plugin, settings)
  }
}
