/** Options of `@restwell/negotiation` and its per-route `config.negotiation`. */
import { OptionsError } from '@restwell/errors'
import { type Static, type TSchema, Type } from '@sinclair/typebox'

/** The representations this plugin can serialize, in the default priority order. */
export const MEDIA_TYPES = {
  json: 'application/json',
  xml: 'application/xml',
  hal: 'application/hal+json',
  jsonApi: 'application/vnd.api+json',
  siren: 'application/vnd.siren+json',
} as const

/** One of the media types this plugin serializes. */
export type SupportedMediaType = (typeof MEDIA_TYPES)[keyof typeof MEDIA_TYPES]

/**
 * A media type a route may produce: one of those this plugin serializes, or any other concrete
 * type (`text/csv`, `application/vnd.github+json`), which the handler serializes itself.
 */
export type ProducedMediaType = SupportedMediaType | (string & Record<never, never>)

/** Every supported media type, in the default priority order (JSON first). */
export const SUPPORTED_MEDIA_TYPES: readonly SupportedMediaType[] = Object.values(MEDIA_TYPES)

/** `?format=` names → media types, by default. */
export const DEFAULT_FORMATS: Readonly<Record<string, SupportedMediaType>> = {
  json: MEDIA_TYPES.json,
  xml: MEDIA_TYPES.xml,
  hal: MEDIA_TYPES.hal,
  jsonapi: MEDIA_TYPES.jsonApi,
  siren: MEDIA_TYPES.siren,
}

export const FORM_URLENCODED = 'application/x-www-form-urlencoded'
export const MULTIPART = 'multipart/form-data'

const SupportedType = Type.Union(SUPPORTED_MEDIA_TYPES.map((type) => Type.Literal(type)))
const Produces = Type.Array(SupportedType, { minItems: 1, uniqueItems: true })
/** A route's types: the five above or any concrete `type/subtype` (no wildcard, no parameter). */
const RouteProduces = Type.Array(
  Type.String({ pattern: "^[A-Za-z0-9!#$%&'+.^_`|~-]+/[A-Za-z0-9!#$%&'+.^_`|~-]+$" }),
  { minItems: 1, uniqueItems: true },
)
const Consumes = Type.Array(
  Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+/[A-Za-z0-9!#$%&'*+.^_`|~-]+$" }),
  { uniqueItems: true },
)
const LanguageTag = Type.String({ pattern: '^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$' })
const Languages = Type.Array(LanguageTag, { minItems: 1, uniqueItems: true })
const Name = Type.String({ minLength: 1, maxLength: 100 })
const QueryName = Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' })
const Size = Type.Integer({ minimum: 0 })

const optionsSchema = Type.Object(
  {
    produces: Type.Optional(Produces),
    defaultType: Type.Optional(SupportedType),
    consumes: Type.Optional(Consumes),
    formatParam: Type.Optional(Type.Union([QueryName, Type.Literal(false)])),
    versionParam: Type.Optional(Type.Union([QueryName, Type.Literal(false)])),
    formats: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-z0-9_.-]{1,32}$' }), SupportedType, {
        additionalProperties: false,
      }),
    ),
    choicesFormat: Type.Optional(
      Type.Union([Type.String({ pattern: '^[a-z0-9_.-]{1,32}$' }), Type.Literal(false)]),
    ),
    languages: Type.Optional(Languages),
    defaultLanguage: Type.Optional(LanguageTag),
    idField: Type.Optional(Name),
    xmlRoot: Type.Optional(Name),
    versionedJson: Type.Optional(Type.Boolean()),
    errors: Type.Optional(Type.Boolean()),
    strictJson: Type.Optional(Type.Boolean()),
    formbody: Type.Optional(
      Type.Union([
        Type.Boolean(),
        Type.Object(
          { bodyLimit: Type.Optional(Type.Integer({ minimum: 1 })) },
          { additionalProperties: false },
        ),
      ]),
    ),
    multipart: Type.Optional(
      Type.Union([
        Type.Boolean(),
        Type.Object(
          {
            attachBody: Type.Optional(Type.Boolean()),
            limits: Type.Optional(
              Type.Object(
                {
                  fieldNameSize: Type.Optional(Size),
                  fieldSize: Type.Optional(Size),
                  fields: Type.Optional(Size),
                  fileSize: Type.Optional(Size),
                  files: Type.Optional(Size),
                  parts: Type.Optional(Size),
                  headerPairs: Type.Optional(Size),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
      ]),
    ),
  },
  { additionalProperties: false },
)

/** Multipart parser limits (busboy's). */
export interface MultipartLimits {
  fieldNameSize?: number
  fieldSize?: number
  fields?: number
  fileSize?: number
  files?: number
  parts?: number
  headerPairs?: number
}

/** Options of `@restwell/negotiation`. Every one is optional. */
export interface NegotiationOptions {
  /** Media types every route can produce, in priority order. [all five, JSON first] */
  produces?: SupportedMediaType[]
  /** Representation when `Accept` is missing or empty. [`application/json`] */
  defaultType?: SupportedMediaType
  /** Request media types accepted on POST, PUT and DELETE of every route; list a form type only if every route takes forms. [`application/json`] */
  consumes?: string[]
  /** Query parameter that overrides `Accept`, or false. [`format`] */
  formatParam?: string | false
  /**
   * Query parameter carrying the API version (`@restwell/versioning`'s `queryParameter`): with
   * versioning registered, the item links of a collection keep it; false: never. [`version`]
   */
  versionParam?: string | false
  /** `?format=` names → media types. [json, xml, hal, jsonapi, siren] */
  formats?: Record<string, SupportedMediaType>
  /** `?format=<this>` answers 300 with the choices, or false. [`choices`] */
  choicesFormat?: string | false
  /** Languages the API serves; none: no language negotiation. [none] */
  languages?: string[]
  /** Language used when no acceptable one is available. [first of `languages`] */
  defaultLanguage?: string
  /** Field holding a resource id (links, JSON:API `id`). [`id`] */
  idField?: string
  /** Root element name of XML documents. [`response`] */
  xmlRoot?: string
  /** Read `Accept: application/vnd.<x>.v<N>+json` as JSON. [true] */
  versionedJson?: boolean
  /** Negotiate error bodies through `@restwell/errors` when it is registered. [true] */
  errors?: boolean
  /**
   * JSON bodies keep their types: a value of another type than the body schema's (`{"name": 123}`
   * for a string) is a 400, not converted by Fastify's default Ajv (`coerceTypes`); false: converted. [true]
   */
  strictJson?: boolean
  /** Parse `application/x-www-form-urlencoded` (`@fastify/formbody`) on the routes that consume it, or its options. [true] */
  formbody?: boolean | { bodyLimit?: number }
  /** Load `@fastify/multipart` for the routes that consume `multipart/form-data`, or `{ attachBody, limits }`. [false; on when `consumes` lists it] */
  multipart?: boolean | { attachBody?: boolean; limits?: MultipartLimits }
}

/** The TypeBox schema of `NegotiationOptions`, checked at registration. */
export const NegotiationOptionsSchema: TSchema = optionsSchema

const routeSchema = Type.Object(
  {
    produces: Type.Optional(RouteProduces),
    consumes: Type.Optional(Consumes),
    type: Type.Optional(Name),
    collection: Type.Optional(Name),
    idField: Type.Optional(Name),
    itemPath: Type.Optional(Type.String({ pattern: '^/[^?#\\s]*$' })),
    languages: Type.Optional(Languages),
    defaultLanguage: Type.Optional(LanguageTag),
    choices: Type.Optional(Type.Boolean()),
    xmlRoot: Type.Optional(Name),
    strictJson: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

/** Per-route settings, `config.negotiation` (`false` turns negotiation off for the route). */
export interface NegotiationRouteConfig {
  /**
   * Media types this route produces, in priority order: those this plugin serializes, and any
   * other concrete type (`text/csv`), which is negotiated like them and sent as the handler
   * sends it (the handler serializes it and sets its `Content-Type`). [plugin's `produces`]
   */
  produces?: ProducedMediaType[]
  /** Request media types this route accepts, form types included (they are accepted only where listed); when set, checked on every method. [`schema.consumes`, else plugin's] */
  consumes?: string[]
  /** Resource type name (JSON:API `type`, Siren `class`). [last static path segment] */
  type?: string
  /** Collection name (HAL `_embedded` key, Siren collection `class`). [`type`] */
  collection?: string
  /** Field holding the id. [plugin's `idField`] */
  idField?: string
  /**
   * Absolute path the items of a collection live under: item links are `<itemPath>/<id>`
   * (`/v1/books` for `/v1/authors/:id/books`). [the request path]
   */
  itemPath?: string
  /** Languages of this route. [plugin's `languages`] */
  languages?: string[]
  /** Default language of this route. [first of the route's `languages`, else plugin's] */
  defaultLanguage?: string
  /** Answer 300 with the choices unless `?format=` picks one. [false] */
  choices?: boolean
  /** Root element name of XML documents. [plugin's `xmlRoot`] */
  xmlRoot?: string
  /** JSON bodies of this route keep their types (a 400 for another type). [plugin's `strictJson`] */
  strictJson?: boolean
}

/** The TypeBox schema of `NegotiationRouteConfig`, checked when a route is added. */
export const NegotiationRouteSchema: TSchema = routeSchema

/** Compile-time proof that the interfaces and the schemas describe the same values. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const schemasMatch: [
  Same<Static<typeof optionsSchema>, NegotiationOptions>,
  Same<Static<typeof routeSchema>, NegotiationRouteConfig>,
] = [true, true]
void schemasMatch

/** Multipart settings after defaults. */
export interface ResolvedMultipart {
  attachBody: boolean
  limits: MultipartLimits
}

/** Plugin options after defaults. */
export interface ResolvedNegotiationOptions {
  produces: readonly SupportedMediaType[]
  defaultType: SupportedMediaType
  consumes: readonly string[]
  formatParam: string | false
  versionParam: string | false
  formats: Readonly<Record<string, SupportedMediaType>>
  choicesFormat: string | false
  languages: readonly string[]
  defaultLanguage: string | undefined
  idField: string
  xmlRoot: string
  versionedJson: boolean
  errors: boolean
  strictJson: boolean
  formbody: { bodyLimit?: number } | false
  multipart: ResolvedMultipart | false
}

const PLUGIN = '@restwell/negotiation'

/** Checks that a default language is one of the languages. */
export function checkLanguages(
  where: string,
  languages: readonly string[] | undefined,
  defaultLanguage: string | undefined,
): void {
  if (defaultLanguage === undefined) return
  const known = (languages ?? []).some((tag) => tag.toLowerCase() === defaultLanguage.toLowerCase())
  if (!known) {
    throw new OptionsError(
      where,
      'defaultLanguage',
      `must be one of "languages", got "${defaultLanguage}"`,
    )
  }
}

/** Applies the defaults, once, at registration. */
export function resolveNegotiationOptions(options: NegotiationOptions): ResolvedNegotiationOptions {
  checkLanguages(PLUGIN, options.languages, options.defaultLanguage)
  const formbody =
    options.formbody === false
      ? false
      : options.formbody === true || options.formbody === undefined
        ? {}
        : options.formbody
  // Multipart is opt-in: @fastify/multipart is loaded only when asked for (#29).
  const multipart: ResolvedMultipart | false =
    options.multipart === false ||
    (options.multipart === undefined &&
      !(options.consumes ?? []).some((type) => type.toLowerCase() === MULTIPART))
      ? false
      : {
          attachBody:
            typeof options.multipart === 'object' ? (options.multipart.attachBody ?? true) : true,
          limits:
            (typeof options.multipart === 'object' ? options.multipart.limits : undefined) ?? {},
        }
  // Form bodies are opt-in per route (`config.negotiation.consumes`): a browser sends them from
  // any origin without a CORS preflight.
  const consumes = options.consumes ?? [MEDIA_TYPES.json]
  const languages = options.languages ?? []
  const produces = options.produces ?? SUPPORTED_MEDIA_TYPES
  // A default the plugin does not produce would never be sent: a request without `Accept`
  // would silently get the first produced type instead.
  if (options.defaultType !== undefined && !produces.includes(options.defaultType)) {
    throw new OptionsError(
      PLUGIN,
      'defaultType',
      `must be one of "produces", got "${options.defaultType}"`,
    )
  }
  const formats = options.formats ?? DEFAULT_FORMATS
  const choicesFormat = options.choicesFormat ?? 'choices'
  // `?format=<name>` of a format would answer 300, whose choice for that format links back to
  // the same URL: a client following it would loop.
  if (choicesFormat !== false && Object.hasOwn(formats, choicesFormat)) {
    throw new OptionsError(
      PLUGIN,
      'choicesFormat',
      `must not be the name of a format (a key of "formats"), got "${choicesFormat}"`,
    )
  }
  return {
    produces,
    defaultType: options.defaultType ?? MEDIA_TYPES.json,
    consumes: consumes.map((type) => type.toLowerCase()),
    formatParam: options.formatParam ?? 'format',
    versionParam: options.versionParam ?? 'version',
    formats,
    choicesFormat,
    languages,
    defaultLanguage: options.defaultLanguage ?? languages[0],
    idField: options.idField ?? 'id',
    xmlRoot: options.xmlRoot ?? 'response',
    versionedJson: options.versionedJson ?? true,
    errors: options.errors ?? true,
    strictJson: options.strictJson ?? true,
    formbody,
    multipart,
  }
}
