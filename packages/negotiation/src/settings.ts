/**
 * What the steps of negotiation read: the plugin's settings, made once at registration, and a
 * route's, decided once when the route is added (its offers, languages, `Vary`, body types).
 */
import type { RouteEntry } from '@restwell/core'
import type { JsonBodyCheck, JsonTypes } from '@restwell/core/internal'
import type { FastifyInstance } from 'fastify'
import type { MediaOffer } from './accept.js'
import { toOffer } from './accept.js'
import { acceptQueryValue, type QueryRoutes } from './accept-query.js'
import type { Negotiated } from './augment.js'
import { bodyContentTypes, hasFormType, schemaConsumes } from './bodies.js'
import type { ContentType } from './content-type.js'
import {
  checkLanguages,
  MEDIA_TYPES,
  type NegotiationRouteConfig,
  type ResolvedNegotiationOptions,
  SUPPORTED_MEDIA_TYPES,
  type SupportedMediaType,
} from './options.js'
import type { SerializeContext } from './serialize.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/negotiation'

/**
 * The types this plugin serializes; a route's other types (`text/csv`) are the handler's, so
 * they are not set as `request[MEDIA_TYPE]` and no serializer touches them.
 */
export const SERIALIZED: ReadonlySet<string> = new Set(SUPPORTED_MEDIA_TYPES)

/** Methods whose request body is checked against `consumes` (PATCH is `@restwell/patch`'s). */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'DELETE', 'QUERY'])

export const MALFORMED = 0
export const NONE = 1
/** What an `Accept` value gives on a route: an offer, nothing acceptable, or malformed. */
export type AcceptOutcome = MediaOffer | typeof MALFORMED | typeof NONE

/** What setup makes of the plugin's options: what every route's settings start from. */
export interface NegotiationSettings {
  readonly options: ResolvedNegotiationOptions
  /** Media type → its first `?format=` name. */
  readonly names: ReadonlyMap<string, string>
  /** The check of JSON bodies' types, where this plugin's JSON parser reads them; else none. */
  readonly jsonTypes: JsonTypes | undefined
  /** `Content-Type` values parsed so far (`null`: not one media type). */
  readonly contentTypes: Map<string, ContentType | null>
  /** The QUERY routes and their `Accept-Query`, for OPTIONS and 405. */
  readonly queries: QueryRoutes
}

/** Everything a route needs per request, computed once when the route is added. */
export interface RouteSettings {
  readonly offers: readonly MediaOffer[]
  readonly acceptCache: Map<string, AcceptOutcome>
  /** `acceptCache` per set of API versions the request may be answered in (`API_VERSIONS`). */
  readonly versionedCaches: WeakMap<ReadonlySet<number>, Map<string, AcceptOutcome>>
  /** The negotiation result per type, made once, for routes without languages. */
  readonly negotiated: ReadonlyMap<string, Negotiated>
  readonly byType: ReadonlyMap<string, MediaOffer>
  /** `Accept` response header of a 406: the types the route produces. */
  readonly produces: string
  readonly consumes: ReadonlySet<string> | undefined
  /** The route consumes a form type: its requests may reach the form parser. */
  readonly forms: boolean
  /** `Accept` response header of a 415: the types the route consumes. */
  readonly consumesHeader: string
  /** `Accept-Query` (RFC 10008 §3) of a route that takes QUERY: the same types; else none. */
  readonly acceptQuery: string | undefined
  readonly languages: readonly string[]
  readonly defaultLanguage: string | undefined
  /** The `REPRESENTATION` of each type, and language, served so far. */
  readonly representations: Map<string, Map<string | undefined, string | undefined>>
  readonly choices: boolean
  readonly vary: readonly string[]
  /** Base of item links in a collection; undefined: the request path. */
  readonly itemPath: string | undefined
  /** The check of JSON bodies' types (`strictJson`); undefined: none. */
  readonly jsonTypes: JsonBodyCheck | undefined
  readonly context: Omit<SerializeContext, 'self' | 'path' | 'page'>
}

/** The last static path segment (`/authors/:id/books/:bookId` → `books`), for default names. */
export function resourceName(url: string): string {
  const segments = url.split('/').filter((s) => s !== '' && !s.startsWith(':') && !s.includes('*'))
  return segments.at(-1) ?? 'resources'
}

/** Media type → its first `?format=` name. */
export function formatNames(
  formats: Readonly<Record<string, SupportedMediaType>>,
): ReadonlyMap<string, string> {
  const names = new Map<string, string>()
  for (const [name, type] of Object.entries(formats)) if (!names.has(type)) names.set(type, name)
  return names
}

/** A route as its settings are made from it. */
export interface RouteAt {
  readonly route: RouteEntry
  readonly instance: FastifyInstance
  readonly methods: readonly string[]
  /** The route as messages name it: `@restwell/negotiation route GET /books`. */
  readonly where: string
}

/** The route's settings: the plugin's, with its own `config.negotiation` over them. */
export function routeSettings(
  plugin: NegotiationSettings,
  config: NegotiationRouteConfig,
  { route, instance, methods, where }: RouteAt,
): RouteSettings {
  const { options, names } = plugin
  checkLanguages(where, config.languages ?? options.languages, config.defaultLanguage)
  // A route's own types are read case-insensitively (`Text/CSV` is `text/csv`).
  const produced = config.produces?.map((t) => t.toLowerCase()) ?? options.produces
  // The default representation goes first: `*/*` and missing `Accept` both pick it.
  const ordered = produced.includes(options.defaultType)
    ? [options.defaultType, ...produced.filter((t) => t !== options.defaultType)]
    : produced
  const offers = ordered.map((type) => toOffer(type)!)
  const query = methods.includes('QUERY')
  // A QUERY route's body schema may name its types (`content`): they are what it takes.
  const declared =
    config.consumes ??
    schemaConsumes(route.schema) ??
    (query ? bodyContentTypes(route.schema) : undefined)
  const consumesList = (declared ?? options.consumes).map((t) => t.toLowerCase())
  const checksBody = declared !== undefined || methods.some((m) => BODY_METHODS.has(m))
  const languages = config.languages ?? options.languages
  const name = config.type ?? resourceName(route.url)
  return {
    offers,
    acceptCache: new Map(),
    versionedCaches: new WeakMap(),
    negotiated: new Map(
      ordered.map((type) => [
        type,
        Object.freeze({ type, format: names.get(type), language: undefined, charset: 'utf-8' }),
      ]),
    ),
    byType: new Map(offers.map((offer) => [offer.mediaType, offer])),
    produces: ordered.join(', '),
    consumes: checksBody ? new Set(consumesList) : undefined,
    forms: hasFormType(consumesList),
    consumesHeader: consumesList.join(', '),
    acceptQuery: query ? acceptQueryValue(consumesList) : undefined,
    languages,
    defaultLanguage: config.defaultLanguage ?? config.languages?.[0] ?? options.defaultLanguage,
    representations: new Map(),
    choices: config.choices ?? false,
    // Only what can change the representation of this route (RFC 9110 §12.5.5).
    vary: [
      ...(offers.length > 1 ? ['Accept'] : []),
      ...(languages.length > 1 ? ['Accept-Language'] : []),
    ],
    itemPath: config.itemPath,
    jsonTypes:
      plugin.jsonTypes !== undefined && (config.strictJson ?? options.strictJson)
        ? plugin.jsonTypes.forRoute(instance, route, MEDIA_TYPES.json)
        : undefined,
    context: {
      type: name,
      collection: config.collection ?? name,
      idField: config.idField ?? options.idField,
      xmlRoot: config.xmlRoot ?? options.xmlRoot,
    },
  }
}

/** Whether the route produces a type this plugin serializes other than JSON (a serialize step). */
export function serializesOtherThanJson(settings: RouteSettings): boolean {
  return settings.offers.some(
    (o) => o.mediaType !== MEDIA_TYPES.json && SERIALIZED.has(o.mediaType),
  )
}
