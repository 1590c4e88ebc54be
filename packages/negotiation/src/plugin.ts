/** The `@restwell/negotiation` plugin: response media type, language, charset and request body types. */
import {
  type JsonBodyCheck,
  JsonTypes,
  registerOnce,
  type RequestStep,
  type RouteEntry,
  routeName,
  type SendStep,
  type SerializeStep,
  servedMethods,
  useRouteStep,
  useSendStep,
} from '@restwell/core'
import {
  ErrorCode,
  type HttpError,
  httpErrors,
  OptionsError,
  validateOptions,
} from '@restwell/errors'
import {
  apiVersionsOf,
  appendVary,
  asList,
  declareState,
  MEDIA_TYPE,
  onEveryRoute,
  REPRESENTATION,
  pageOf,
  pathOf,
  publicUrl,
  schemaAccess,
} from '@restwell/core'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  preValidationHookHandler,
} from 'fastify'
import fp from 'fastify-plugin'
import { acceptsUtf8 } from './accept-charset.js'
import { parseAcceptLanguage, pickLanguage } from './accept-language.js'
import { type MediaOffer, negotiateMediaType, parseAccept, remembered, toOffer } from './accept.js'
import type { Negotiated } from './augment.js'
import {
  addParserUnlessPresent,
  checkFormParsers,
  declaredOnly,
  FORM_PATTERN,
  describeFormBodies,
  hasFormType,
  schemaConsumes,
  parsesForms,
  utf8FormParser,
  utf8JsonParser,
} from './bodies.js'
import { type ContentType, parseContentType } from './content-type.js'
import { createErrorRenderer } from './error-body.js'
import { itemQuery, shownPage } from './forms.js'
import { jsonValue } from './json-value.js'
import { readMultipart } from './multipart.js'
import { importMultipart } from './peer.js'
import {
  checkLanguages,
  FORM_URLENCODED,
  MEDIA_TYPES,
  MULTIPART,
  type NegotiationOptions,
  NegotiationOptionsSchema,
  type NegotiationRouteConfig,
  NegotiationRouteSchema,
  type ResolvedNegotiationOptions,
  resolveNegotiationOptions,
  SUPPORTED_MEDIA_TYPES,
  type SupportedMediaType,
} from './options.js'
import { CONTENT_TYPES, type SerializeContext } from './serialize.js'
import { serializePayload } from './serialize.js'

const PLUGIN = '@restwell/negotiation'

/**
 * The types this plugin serializes; a route's other types (`text/csv`) are the handler's, so
 * they are not set as `request[MEDIA_TYPE]` and no serializer touches them.
 */
const SERIALIZED: ReadonlySet<string> = new Set(SUPPORTED_MEDIA_TYPES)

/** Methods whose request body is checked against `consumes` (PATCH is `@restwell/patch`'s). */
const BODY_METHODS = new Set(['POST', 'PUT', 'DELETE'])

/** Set on a request whose route consumes a form type, for the form parser. */
const FORM_ROUTE: unique symbol = Symbol('restwell.negotiation.formRoute')
/** The check of JSON types of the request's route, for the JSON parser. */
const JSON_TYPES: unique symbol = Symbol('restwell.negotiation.jsonTypes')

interface JsonTypesState {
  [JSON_TYPES]?: JsonBodyCheck
}

function formRoute(request: FastifyRequest): boolean {
  return (request as { [FORM_ROUTE]?: true })[FORM_ROUTE] === true
}

/** `parseContentType` with `null` for "not one media type", as a memo's verdict. */
const parseOrNull = (header: string): ContentType | null => parseContentType(header) ?? null

const MALFORMED = 0
const NONE = 1
/** What an `Accept` value gives on a route: an offer, nothing acceptable, or malformed. */
type AcceptOutcome = MediaOffer | typeof MALFORMED | typeof NONE

/** Everything a route needs per request, computed once in `onRoute`. */
interface RouteSettings {
  offers: readonly MediaOffer[]
  acceptCache: Map<string, AcceptOutcome>
  /** `acceptCache` per set of API versions the request may be answered in (`API_VERSIONS`). */
  versionedCaches: WeakMap<ReadonlySet<number>, Map<string, AcceptOutcome>>
  /** The negotiation result per type, made once, for routes without languages. */
  negotiated: ReadonlyMap<string, Negotiated>
  byType: ReadonlyMap<string, MediaOffer>
  /** `Accept` response header of a 406: the types the route produces. */
  produces: string
  consumes: ReadonlySet<string> | undefined
  /** The route consumes a form type: its requests may reach the form parser. */
  forms: boolean
  /** `Accept` response header of a 415: the types the route consumes. */
  consumesHeader: string
  languages: readonly string[]
  defaultLanguage: string | undefined
  /** The `REPRESENTATION` of each type, and language, served so far. */
  representations: Map<string, Map<string | undefined, string | undefined>>
  choices: boolean
  vary: readonly string[]
  /** Base of item links in a collection; undefined: the request path. */
  itemPath: string | undefined
  /** The check of JSON bodies' types (`strictJson`); undefined: none. */
  jsonTypes: JsonBodyCheck | undefined
  context: Omit<SerializeContext, 'self' | 'path' | 'page'>
}

/** Fastify's route hook option: one function or a list. */

/** The last static path segment (`/authors/:id/books/:bookId` → `books`), for default names. */
export function resourceName(url: string): string {
  const segments = url.split('/').filter((s) => s !== '' && !s.startsWith(':') && !s.includes('*'))
  return segments.at(-1) ?? 'resources'
}

function bodyPresent(request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return (
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
  )
}

/** Media type → its first `?format=` name. */
function formatNames(
  formats: Readonly<Record<string, SupportedMediaType>>,
): ReadonlyMap<string, string> {
  const names = new Map<string, string>()
  for (const [name, type] of Object.entries(formats)) if (!names.has(type)) names.set(type, name)
  return names
}

/** A URL with one query parameter set, for the 300 choice list. */
function withQuery(url: string, name: string, value: string): string {
  const q = url.indexOf('?')
  const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1))
  params.set(name, value)
  return `${pathOf(url)}?${params.toString()}`
}

function notAcceptable(message: string, produces: string): HttpError {
  return httpErrors.notAcceptable(message, {
    code: ErrorCode.NOT_ACCEPTABLE,
    headers: { accept: produces },
  })
}

function malformedHeader(name: string): HttpError {
  return httpErrors.badRequest(`Malformed ${name} header`, {
    code: ErrorCode.MALFORMED_HEADER,
    details: [
      {
        field: `headers/${name.toLowerCase()}`,
        message: 'is malformed',
        code: ErrorCode.MALFORMED_HEADER,
      },
    ],
  })
}

function unsupportedMediaType(message: string, consumes: string): HttpError {
  return httpErrors.unsupportedMediaType(message, {
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    headers: { accept: consumes },
  })
}

/** A `charset` parameter that names UTF-8. */
function namesUtf8(value: string): boolean {
  const lower = value.toLowerCase()
  return lower === 'utf-8' || lower === 'utf8'
}

const passThrough = (payload: unknown): string => payload as string

type Serializer = (data: unknown) => string

/**
 * The route's JSON response serializer for a status (`200`, then `2xx`, then `default`), so
 * the fields a response schema leaves out are left out of every representation.
 */
function responseSerializer(reply: FastifyReply, status: number): Serializer | undefined {
  for (const key of [String(status), `${String(status)[0]}xx`, 'default']) {
    const found = reply.getSerializationFunction(key) as
      | Serializer
      | Record<string, Serializer>
      | undefined
    if (typeof found === 'function') return found
    if (found !== undefined) return found['application/json'] ?? found['*/*']
  }
  return undefined
}

const plugin: FastifyPluginAsync<NegotiationOptions> = async (fastify, rawOptions) => {
  registerOnce(fastify, '@restwell/negotiation', 'negotiation')
  const options: ResolvedNegotiationOptions = resolveNegotiationOptions(
    validateOptions(PLUGIN, NegotiationOptionsSchema, rawOptions) as NegotiationOptions,
  )
  const formatParam = options.formatParam
  const versionParam = options.versionParam
  const formats = options.formats
  const names = formatNames(formats)

  fastify.decorateRequest('negotiated', null)
  fastify.decorateRequest('language', undefined)
  declareState(fastify, 'request', MEDIA_TYPE, REPRESENTATION, FORM_ROUTE, JSON_TYPES)

  // Request bodies are UTF-8 (RFC 8259 §8.1): the JSON and form parsers check the bytes before
  // decoding them (else they become U+FFFD). Parsers the app registered itself are kept, and so
  // is an app's choice to parse no JSON at all. The JSON parser checks JSON types too.
  const parsesJson =
    fastify.hasContentTypeParser(MEDIA_TYPES.json) &&
    addParserUnlessPresent(fastify, MEDIA_TYPES.json, {
      bodyLimit: undefined,
      parser: utf8JsonParser(fastify, (request) => (request as JsonTypesState)[JSON_TYPES]),
    })
  const jsonTypes = new JsonTypes(
    fastify,
    (route, error) =>
      new OptionsError(
        `${PLUGIN} route ${routeName(route)}`,
        'schema.body',
        `cannot be compiled for the check of JSON types (${error.message}): fix the schema, or set config.negotiation.strictJson to false`,
      ),
  )
  if (options.formbody !== false && !parsesForms(fastify)) {
    const parser = declaredOnly(utf8FormParser(options.formbody), FORM_URLENCODED, formRoute)
    addParserUnlessPresent(fastify, FORM_PATTERN, parser)
  }
  if (options.multipart !== false && !fastify.hasContentTypeParser(MULTIPART)) {
    const { default: multipart } = await importMultipart()
    await fastify.register(multipart, {
      limits: options.multipart.limits,
      throwFileSizeLimit: true,
    })
  }

  if (options.errors) {
    fastify.addHook('onReady', async function registerErrorRenderer() {
      if (fastify.hasDecorator('restwellErrors')) {
        const api = fastify.restwellErrors
        // `?format=` wins over Accept for errors too, those of no route (404, 405) and those
        // raised before negotiation (429) included.
        api.addRenderer(
          createErrorRenderer(api.format, options.versionedJson, { formatParam, formats }),
        )
      }
    })
  }

  function settingsFor(
    route: NegotiationRouteConfig,
    routeOptions: RouteEntry,
    instance: FastifyInstance,
  ): RouteSettings {
    const where = `${PLUGIN} route ${routeName(routeOptions)}`
    checkLanguages(where, route.languages ?? options.languages, route.defaultLanguage)
    // A route's own types are read case-insensitively (`Text/CSV` is `text/csv`).
    const produced = route.produces?.map((t) => t.toLowerCase()) ?? options.produces
    // The default representation goes first: `*/*` and missing `Accept` both pick it.
    const ordered = produced.includes(options.defaultType)
      ? [options.defaultType, ...produced.filter((t) => t !== options.defaultType)]
      : produced
    const offers = ordered.map((type) => toOffer(type)!)
    const methods = servedMethods(routeOptions)
    const declared = route.consumes ?? schemaConsumes(routeOptions.schema)
    const consumesList = (declared ?? options.consumes).map((t) => t.toLowerCase())
    const checksBody = declared !== undefined || methods.some((m) => BODY_METHODS.has(m))
    const languages = route.languages ?? options.languages
    const name = route.type ?? resourceName(routeOptions.url)
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
      languages,
      defaultLanguage: route.defaultLanguage ?? route.languages?.[0] ?? options.defaultLanguage,
      representations: new Map(),
      choices: route.choices ?? false,
      // Only what can change the representation of this route (RFC 9110 §12.5.5).
      vary: [
        ...(offers.length > 1 ? ['Accept'] : []),
        ...(languages.length > 1 ? ['Accept-Language'] : []),
      ],
      itemPath: route.itemPath,
      jsonTypes:
        parsesJson && (route.strictJson ?? options.strictJson)
          ? jsonTypes.forRoute(instance, routeOptions, MEDIA_TYPES.json)
          : undefined,
      context: {
        type: name,
        collection: route.collection ?? name,
        idField: route.idField ?? options.idField,
        xmlRoot: route.xmlRoot ?? options.xmlRoot,
      },
    }
  }

  function choicesBody(request: FastifyRequest, settings: RouteSettings, preferred: MediaOffer) {
    const choices: { type: string; href: string }[] = []
    let location: string | undefined
    const url = publicUrl(request)
    for (const offer of settings.offers) {
      const name = names.get(offer.mediaType)
      if (name === undefined || formatParam === false) continue
      const href = withQuery(url, formatParam, name)
      choices.push({ type: offer.mediaType, href })
      if (offer === preferred) location = href
    }
    return { choices, location }
  }

  /** The 300 with the route's representations: `true` once sent, or the 400 of a bad `Accept`. */
  function sendChoices(
    request: FastifyRequest,
    reply: FastifyReply,
    settings: RouteSettings,
  ): true | HttpError {
    const offer = preferredOffer(request, settings)
    if (offer instanceof Error) return offer
    const { choices, location } = choicesBody(request, settings, offer ?? settings.offers[0]!)
    if (location !== undefined) reply.header('location', location)
    reply.code(300).type(CONTENT_TYPES[MEDIA_TYPES.json]).send(JSON.stringify({ choices }))
    return true
  }

  /**
   * The offer `Accept` prefers, undefined when nothing it lists is produced, or the 400 of a
   * malformed `Accept`.
   */
  function preferredOffer(
    request: FastifyRequest,
    settings: RouteSettings,
  ): MediaOffer | HttpError | undefined {
    const header = request.headers.accept
    if (header === undefined) return settings.offers[0]
    // Which versioned JSON ranges read as JSON depends on the versions this request may be
    // answered in (set by `@restwell/versioning`), so verdicts are remembered per such set.
    const versions = options.versionedJson ? apiVersionsOf(request) : undefined
    let memo = settings.acceptCache
    if (versions !== undefined) {
      let cached = settings.versionedCaches.get(versions)
      if (cached === undefined) {
        cached = new Map()
        settings.versionedCaches.set(versions, cached)
      }
      memo = cached
    }
    const outcome = remembered(memo, header, (value) =>
      acceptOutcome(value, settings.offers, versions),
    )
    if (outcome === MALFORMED) return malformedHeader('Accept')
    return outcome === NONE ? undefined : outcome
  }

  function acceptOutcome(
    header: string,
    offers: readonly MediaOffer[],
    versions: ReadonlySet<number> | undefined,
  ): AcceptOutcome {
    const ranges = parseAccept(header, { versionedJson: options.versionedJson, versions })
    if (ranges === undefined) return MALFORMED
    if (ranges.length === 0) return offers[0]!
    return negotiateMediaType(ranges, offers) ?? NONE
  }

  /** `Content-Type` values parsed so far (`null`: not one media type). */
  const contentTypes = new Map<string, ContentType | null>()

  function checkBody(
    request: FastifyRequest,
    settings: RouteSettings,
    consumes: ReadonlySet<string>,
  ): HttpError | undefined {
    if (!bodyPresent(request)) return undefined
    const header = request.headers['content-type']
    if (header === undefined || header.trim() === '') {
      return unsupportedMediaType(
        'The request has a body but no Content-Type',
        settings.consumesHeader,
      )
    }
    const contentType = remembered(contentTypes, header, parseOrNull)
    if (contentType === null) return malformedHeader('Content-Type')
    if (!consumes.has(contentType.essence)) {
      return unsupportedMediaType(
        `Content-Type ${contentType.essence} is not supported here; use one of: ${settings.consumesHeader}`,
        settings.consumesHeader,
      )
    }
    if (contentType.essence === MEDIA_TYPES.jsonApi) {
      // JSON:API 1.1 (server responsibilities): 415 for any parameter but `ext` and `profile`,
      // and for an `ext` naming an extension the server does not support (restwell supports none).
      const other = contentType.params.find(([name]) => name !== 'profile')
      if (other !== undefined) {
        return unsupportedMediaType(
          `The JSON:API media type takes no "${other[0]}" parameter here (JSON:API allows only ext and profile, and no extension is supported)`,
          settings.consumesHeader,
        )
      }
    }
    const charset = contentType.params.find(([name]) => name === 'charset')
    if (charset !== undefined && !namesUtf8(charset[1])) {
      return unsupportedMediaType(
        `Request bodies must be UTF-8, got charset ${charset[1]}`,
        settings.consumesHeader,
      )
    }
    return undefined
  }

  /**
   * What tells `type` in `language` apart from the route's default representation (see
   * `REPRESENTATION`), made once per type and language.
   */
  function representationKey(
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
    const name = names.get(type) ?? type
    const made = otherLanguage
      ? `${name};${language.toLowerCase().replaceAll('-', '_')}`
      : type === settings.offers[0]!.mediaType
        ? undefined
        : name
    byLanguage.set(language, made)
    return made
  }

  /**
   * Negotiates one request: true when it has answered (300) itself, or the 400, 406 or 415 error
   * to answer with (returned, not thrown: a refusal costs no stack walk).
   */
  function negotiate(
    request: FastifyRequest,
    reply: FastifyReply,
    settings: RouteSettings,
  ): boolean | HttpError {
    const charsets = request.headers['accept-charset']
    if (charsets !== undefined && !acceptsUtf8(String(charsets))) {
      return httpErrors.notAcceptable('UTF-8 is the only charset served', {
        code: ErrorCode.UNSUPPORTED_CHARSET,
        details: [
          {
            field: 'headers/accept-charset',
            message: 'excludes utf-8',
            code: ErrorCode.UNSUPPORTED_CHARSET,
          },
        ],
      })
    }
    let offer: MediaOffer | undefined
    const query = request.query as Record<string, unknown> | null
    const format =
      formatParam === false || query === null || typeof query !== 'object'
        ? undefined
        : query[formatParam]
    if (format !== undefined) {
      const name = typeof format === 'string' ? format.toLowerCase() : ''
      if (name === options.choicesFormat) return sendChoices(request, reply, settings)
      const type = Object.hasOwn(formats, name) ? formats[name] : undefined
      if (type === undefined) {
        return httpErrors.badRequest(
          `Unknown format; use one of: ${Object.keys(formats).join(', ')}`,
          {
            code: ErrorCode.UNKNOWN_FORMAT,
            details: [
              {
                field: `querystring/${formatParam}`,
                message: 'is not a known format',
                code: ErrorCode.UNKNOWN_FORMAT,
              },
            ],
          },
        )
      }
      offer = settings.byType.get(type)
      if (offer === undefined)
        return notAcceptable(`Format ${name} is not available here`, settings.produces)
    } else if (settings.choices) {
      return sendChoices(request, reply, settings)
    } else {
      const preferred = preferredOffer(request, settings)
      if (preferred instanceof Error) return preferred
      offer = preferred
      if (offer === undefined) {
        return notAcceptable(
          `None of the accepted media types is available; use one of: ${settings.produces}`,
          settings.produces,
        )
      }
    }
    const type = offer.mediaType
    let language: string | undefined
    if (settings.defaultLanguage !== undefined) {
      const header = request.headers['accept-language']
      language =
        header === undefined
          ? settings.defaultLanguage
          : pickLanguage(parseAcceptLanguage(header), settings.languages, settings.defaultLanguage)
      request.language = language
    }
    const refusal =
      settings.consumes === undefined ? undefined : checkBody(request, settings, settings.consumes)
    if (refusal !== undefined) return refusal
    if (SERIALIZED.has(type)) (request as { [MEDIA_TYPE]?: string })[MEDIA_TYPE] = type
    const representation = representationKey(settings, type, language)
    if (representation !== undefined) {
      ;(request as { [REPRESENTATION]?: string })[REPRESENTATION] = representation
    }
    request.negotiated =
      language === undefined
        ? settings.negotiated.get(type)!
        : { type, format: names.get(type), language, charset: 'utf-8' }
    return false
  }

  onEveryRoute(fastify, function negotiationOnRoute(this: FastifyInstance, routeOptions) {
    const config = routeOptions.config?.negotiation
    if (config === false) return
    const route: NegotiationRouteConfig =
      config === undefined
        ? {}
        : (validateOptions(
            `${PLUGIN} route ${routeName(routeOptions)}`,
            NegotiationRouteSchema,
            config,
          ) as NegotiationRouteConfig)
    const settings = settingsFor(route, routeOptions, this)
    const consumed = [...(settings.consumes ?? [])]
    checkFormParsers(this, `${PLUGIN} route ${routeName(routeOptions)}`, consumed)
    const multipartObject = options.multipart !== false && options.multipart.attachBody
    describeFormBodies(routeOptions, consumed, schemaAccess(this, routeOptions), multipartObject)

    const onRequest: RequestStep = function negotiationOnRequest(request, reply) {
      if (settings.forms) (request as { [FORM_ROUTE]?: true })[FORM_ROUTE] = true
      if (settings.jsonTypes !== undefined)
        (request as JsonTypesState)[JSON_TYPES] = settings.jsonTypes
      return negotiate(request, reply, settings)
    }
    useRouteStep(this, routeOptions, 'onRequest', 'negotiation', onRequest, {
      where: 'first',
      hookName: 'negotiationOnRequest',
    })

    const onSend: SendStep = function negotiationOnSend(request, reply) {
      // An error is not localized (no Content-Language): its form varies by Accept alone, and with
      // auth's hideRoutes an anonymous 401 from a route then looks like one from an unknown path.
      if (reply.statusCode < 400) {
        if (settings.vary.length > 0) appendVary(reply, ...settings.vary)
        // The handler knows the language of what it sent (a missing translation may fall back
        // to another one): its own Content-Language stands (RFC 9110 §8.5).
        if (request.language !== undefined && !reply.hasHeader('content-language')) {
          reply.header('content-language', request.language)
        }
      } else {
        appendVary(reply, 'Accept')
      }
      return undefined
    }
    useSendStep(this, routeOptions, 'negotiation', onSend)

    if (
      settings.offers.some((o) => o.mediaType !== MEDIA_TYPES.json && SERIALIZED.has(o.mediaType))
    ) {
      const preSerialization: SerializeStep = function negotiationSerialize(
        request,
        reply,
        payload,
      ) {
        const type = (request as { [MEDIA_TYPE]?: SupportedMediaType })[MEDIA_TYPE]
        if (type === undefined || type === MEDIA_TYPES.json) return undefined
        const location = reply.getHeader('location')
        const filter = responseSerializer(reply, reply.statusCode)
        // The payload as JSON sends it: through the response schema, else `toJSON` applied.
        const data = filter === undefined ? jsonValue(payload) : JSON.parse(filter(payload))
        // Links name the URL the client sent, not the one `rewriteUrl` made.
        const url = publicUrl(request)
        const body = serializePayload(type, data, reply.statusCode, {
          ...settings.context,
          self: reply.statusCode === 201 && typeof location === 'string' ? location : url,
          path: settings.itemPath ?? pathOf(url),
          itemQuery: versionParam === false ? undefined : itemQuery(request, url, versionParam),
          page: shownPage(pageOf(reply), data),
        })
        if (body === undefined) return undefined
        reply.serializer(passThrough).type(CONTENT_TYPES[type])
        return body
      }
      useRouteStep(this, routeOptions, 'preSerialization', 'negotiation', preSerialization)
    }

    if (
      options.multipart !== false &&
      options.multipart.attachBody &&
      settings.consumes?.has(MULTIPART)
    ) {
      const preValidation: preValidationHookHandler = async function negotiationMultipart(request) {
        if (request.isMultipart()) request.body = await readMultipart(request)
      }
      routeOptions.preValidation = [preValidation, ...asList(routeOptions.preValidation)]
    }
  })
}

/**
 * Content negotiation for a Fastify API (spec 4.5): `Accept` with q-values and `?format=`,
 * 406/415/300, `Vary`, `Accept-Language`, `Accept-Charset`; JSON, XML, HAL, JSON:API and Siren;
 * form-urlencoded and multipart bodies.
 *
 * @example
 * await app.register(restwellErrors)
 * await app.register(restwellNegotiation, { languages: ['en', 'de'] })
 * app.get('/books/:id', { config: { negotiation: { type: 'books' } } }, handler)
 */
export const restwellNegotiation: FastifyPluginAsync<NegotiationOptions> = fp(plugin, {
  fastify: '5.x',
  name: PLUGIN,
})
