/**
 * OpenAPI: with `@fastify/swagger` registered before restwell, route schemas gain what Fastify
 * checks of restwell's (error responses, validator and precondition headers) and each route's
 * `config.swaggerTransform` shows the rest in the document. Without swagger nothing is touched.
 */
import type { ErrorFormat } from '@restwell/errors'
import type { RouteDescription, RouteEntry } from '@restwell/core'
import {
  CONTENT_METHODS,
  isPlainSchema,
  overrideTwinOf,
  versionPairOf,
  type SchemaAccess,
  schemaAccess,
  servedMethods,
} from '@restwell/core/internal'
import { type NegotiationOptions, SUPPORTED_MEDIA_TYPES } from '@restwell/negotiation'
import type { FastifyInstance, RouteOptions } from 'fastify'
import type { DocumentPlan, describeInDocument } from './openapi-document.js'

/** The `$id` of the shared error body schema (`components.schemas.RestwellError`). */
export const ERROR_SCHEMA_ID = 'RestwellError'

type Json = Record<string, unknown>

const str = { type: 'string' }
const detail = (withCode: boolean): Json => ({
  type: 'object',
  required: ['field', 'message'],
  properties: withCode ? { field: str, message: str, code: str } : { field: str, message: str },
})

/** The JSON schema of an error body in one form. */
export function errorBodySchema(format: ErrorFormat): Json {
  const details = { type: 'array', items: detail(format !== 'validation') }
  switch (format) {
    case 'simple':
      return {
        type: 'object',
        required: ['error', 'requestId'],
        properties: { error: str, requestId: str },
      }
    case 'validation':
      return {
        type: 'object',
        required: ['error', 'details', 'requestId'],
        properties: { error: str, details, requestId: str },
      }
    case 'problem':
      return {
        type: 'object',
        required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
        properties: {
          type: str,
          title: str,
          status: { type: 'integer' },
          detail: str,
          instance: str,
          code: str,
          details,
          requestId: str,
          timestamp: { type: 'string', format: 'date-time' },
        },
      }
    default:
      return {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message', 'details', 'requestId', 'timestamp'],
            properties: {
              code: str,
              message: str,
              details,
              requestId: str,
              timestamp: { type: 'string', format: 'date-time' },
            },
          },
        },
      }
  }
}

/** Which plugins are on, as the umbrella registered them. */
export interface OpenapiPlan {
  errors: ErrorFormat | false
  auth: boolean
  authByDefault: boolean
  /** `@restwell/auth`'s `hideRoutes`: answers of no route need a token. [authByDefault] */
  hideRoutes?: boolean
  negotiation: boolean
  versioning: boolean
  /**
   * For the document only: what negotiation produces (every route's types unless its own
   * `produces`), whether it answers 300 choices, negotiates error bodies.
   * [JSON only, none of them]
   */
  representations?: {
    produces: readonly string[]
    choices: boolean
    errors: boolean
  }
  /** `@restwell/methods` answers OPTIONS on every path (documented per path). [false] */
  autoOptions?: boolean
  /**
   * What the declared conventions say of one route (their `describe`), given the instance the
   * route is added in: asked when the route is added (its schema) and when the document is
   * built (a convention installed after the route says it there too). [nothing]
   */
  conventions?(instance: FastifyInstance, route: RouteEntry): readonly RouteDescription[]
  /**
   * The app's `transform` of `@fastify/swagger` (e.g. fastify-type-provider-zod's
   * `jsonSchemaTransform`): restwell's route transforms take the place of the global one, so
   * they run it first. Without it, a route with a type provider's schemas is left to the app's
   * transform, without restwell's additions. [none]
   */
  transform?(input: SwaggerTransformInput): SwaggerTransformResult
}

/** The route's methods, HEAD read as GET (it answers what GET does, without the body). */
function methodsOf(route: RouteOptions): string[] {
  return servedMethods(route).map((m) => (m === 'HEAD' ? 'GET' : m))
}

function configOf(route: RouteOptions): Json {
  return (route.config ?? {}) as Json
}

function headerProps(entries: [string, string][]): Json {
  return Object.fromEntries(
    entries.map(([name, description]) => [name, { type: 'string', description }]),
  )
}

/**
 * The responses one route can produce, with their descriptions: Fastify's and the error
 * handler's, and those the conventions say (`described`: each one's `describe`). `_plan` is
 * unused: what a convention adds, it says itself.
 */
export function routeResponses(
  route: RouteOptions,
  _plan: OpenapiPlan,
  described: readonly RouteDescription[] = [],
): Map<number, string> {
  const methods = methodsOf(route)
  const out = new Map<number, string>()
  out.set(400, 'Bad Request: malformed syntax or invalid parameters (`details` names each)')
  out.set(404, 'Not Found')
  if (methods.some((m) => CONTENT_METHODS.has(m))) {
    out.set(413, 'Payload Too Large')
    out.set(415, 'Unsupported Media Type')
  }
  if (methods.includes('QUERY')) {
    out.set(
      422,
      'Unprocessable Content: the query is well-formed but the route cannot run it (its body schema)',
    )
  }
  out.set(500, 'Internal Server Error (the body carries `requestId`)')
  // A status another convention answers too keeps both meanings; one whose body a convention
  // describes is the document's alone (`documentSchema`).
  for (const [status, description, answer] of described.flatMap((one) => one.responses ?? [])) {
    if (answer?.content !== undefined) continue
    const before = out.get(status)
    out.set(status, before === undefined ? description : `${before}; or: ${description}`)
  }
  return out
}

function asObject(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined
}

/** Both parts: what `describeRoute` adds to when not told otherwise. */
const EVERY_PART: SchemaAccess = { validation: true, response: true }

/**
 * Adds what restwell does to a copy of one route's schema, in the parts Fastify compiles and
 * `access` allows (see `SchemaAccess`); the rest is for the document alone (`documentSchema`):
 * a request header a convention requires but answers the absence of itself, for one.
 */
export function describeRoute(
  route: RouteOptions,
  plan: OpenapiPlan,
  access: SchemaAccess = EVERY_PART,
  described: readonly RouteDescription[] = [],
): void {
  const schema = describedSchema(route.schema, route, plan, access, described)
  if (schema !== undefined) route.schema = schema
}

/**
 * `given` with what `describeRoute` adds (a copy), or undefined: nothing to add to it. For the
 * `document`, the request headers a convention requires are required: Fastify never sees that,
 * so the convention answers their absence in its own error form.
 */
function describedSchema(
  given: unknown,
  route: RouteOptions,
  plan: OpenapiPlan,
  access: SchemaAccess,
  described: readonly RouteDescription[],
  document = false,
): Json | undefined {
  if (given !== undefined && !isPlainSchema(given)) return undefined
  const schema: Json = { ...given }
  if (schema.hide === true) return undefined
  if (access.response && (schema.response === undefined || isPlainSchema(schema.response))) {
    schema.response = describeResponses(route, plan, schema.response, described)
  }
  const requestHeaders: [string, string][] = []
  const required: string[] = []
  for (const [name, description, needed] of described.flatMap((one) => one.requestHeaders ?? [])) {
    requestHeaders.push([name.toLowerCase(), description])
    if (document && needed === true) required.push(name.toLowerCase())
  }
  const headers = schema.headers
  if (
    access.validation &&
    requestHeaders.length > 0 &&
    (headers === undefined || (isPlainSchema(headers) && headers.type === 'object'))
  ) {
    const own = Array.isArray(headers?.required) ? (headers.required as string[]) : []
    schema.headers = {
      type: 'object',
      ...headers,
      properties: { ...asObject(headers?.properties), ...headerProps(requestHeaders) },
      ...(required.length === 0 ? {} : { required: [...new Set([...own, ...required])] }),
    }
  }
  // Nothing to say (a route Fastify does not validate nor serialize itself): none stays none.
  if (given === undefined && Object.keys(schema).length === 0) return undefined
  return schema
}

/** A copy of a route's plain response map with restwell's responses and validator headers. */
function describeResponses(
  route: RouteOptions,
  plan: OpenapiPlan,
  given: Json | undefined,
  described: readonly RouteDescription[],
): Json {
  const response: Json = { ...given }
  const contentType = plan.errors === 'problem' ? 'application/problem+json' : 'application/json'
  const errorBody = { [contentType]: { schema: { $ref: `${ERROR_SCHEMA_ID}#` } } }
  // An error status the route names with a description only (`409: { description }`, one its
  // handler throws) has the error body.
  for (const [status, own] of Object.entries(response)) {
    const named = isPlainSchema(own) && Object.keys(own).every((key) => key === 'description')
    if (named && Number(status) >= 400 && plan.errors !== false)
      response[status] = { ...own, content: errorBody }
  }
  for (const [status, description] of routeResponses(route, plan, described)) {
    if (response[status] !== undefined) continue
    response[status] =
      status < 400 || plan.errors === false
        ? { description, type: 'null' }
        : { description, content: errorBody }
  }
  // What a success of the route carries because of a convention, on each success it names (a
  // 200 when it names none: the map restwell fills leaves swagger no default success to add),
  // or on those the convention names.
  const successes = Object.keys(response)
    .filter((status) => /^2\d\d$/.test(status))
    .map(Number)
  if (successes.length === 0) successes.push(200)
  for (const [name, description, statuses] of described.flatMap(
    (one) => one.responseHeaders ?? [],
  )) {
    for (const status of statuses ?? successes) {
      const own = response[status] ?? { description: 'OK' }
      // A schema of another kind (a Zod schema) is kept whole: a copy would lose its methods.
      if (!isPlainSchema(own)) continue
      const header = headerProps([[name.toLowerCase(), description]])
      response[status] = { ...own, headers: { ...asObject(own.headers), ...header } }
    }
  }
  return response
}

/** What negotiation's options say of the representations, for the document. */
export function representationsOf(
  options: NegotiationOptions | false | undefined,
): OpenapiPlan['representations'] {
  if (options === false) return undefined
  return {
    produces: options?.produces ?? SUPPORTED_MEDIA_TYPES,
    choices: options?.choicesFormat !== false && options?.formatParam !== false,
    errors: options?.errors ?? true,
  }
}

/** What the document transform needs of the plan. */
export function documentPlanOf(plan: OpenapiPlan): DocumentPlan {
  const representations = plan.representations ?? {
    produces: ['application/json'],
    choices: false,
    errors: false,
  }
  return {
    errors: plan.errors === false ? false : plan.errors === 'problem' ? 'problem' : 'other',
    negotiation: plan.negotiation ? representations : false,
    autoOptions: plan.autoOptions ?? false,
    hideRoutes: plan.auth && (plan.hideRoutes ?? plan.authByDefault),
    versioning: plan.versioning,
    errorSchema: plan.errors === false ? undefined : errorBodySchema(plan.errors),
  }
}

/** What `@fastify/swagger` hands a route transform (`openapiObject`: the document being built). */
export interface SwaggerTransformInput {
  schema?: unknown
  url: string
  route: RouteOptions
  openapiObject?: object
  swaggerObject?: object
}
export interface SwaggerTransformResult {
  schema?: unknown
  url?: string
}
export type SwaggerTransform = (input: SwaggerTransformInput) => SwaggerTransformResult

/**
 * The route's `config.swaggerTransform`: the route's own transform, else the app's
 * (`plan.transform`), runs first; the document shows that schema with what `describeRoute`
 * adds (where the route's own schema could not take it: a type provider's) and what
 * `describeInDocument` adds, and gains what goes with it. The route's schema is left as it is.
 * `describe` is `describeInDocument`, loaded with the document's module; `headServed`: whether
 * Fastify answers HEAD on a URL; `describedBy`: what the conventions say of the route, asked
 * when the document is built (a convention installed after the route was added, such as
 * `@restwell/jobs` of its own routes, says it too).
 */
export function swaggerTransformFor(
  plan: OpenapiPlan,
  own: unknown,
  describe: typeof describeInDocument,
  headServed: (url: string) => boolean = () => false,
  describedBy: () => readonly RouteDescription[] = () => [],
): SwaggerTransform {
  const documentPlan = documentPlanOf(plan)
  return (input) => {
    const before =
      typeof own === 'function' ? (own as SwaggerTransform)(input) : (plan.transform?.(input) ?? {})
    const document = input.openapiObject as Json | undefined
    // Swagger 2.0 (`swaggerObject`) is left as @fastify/swagger makes it.
    if (document === undefined) return before
    const { route } = input
    const described = describedBy()
    const given = before.schema ?? input.schema
    const schema =
      describedSchema(given, route, plan, EVERY_PART, described, true) ??
      (given as Json | undefined)
    const url = before.url ?? input.url
    const served = headServed(route.url)
    return {
      ...before,
      schema: describe(document, schema, route, url, documentPlan, served, described),
    }
  }
}

/** An object that is not plain: a Zod or other type provider's schema. */
function foreign(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !isPlainSchema(value)
}

/** No schema, or JSON Schema throughout (no type provider's schema object in its parts). */
function jsonSchemaOnly(schema: unknown): boolean {
  if (!isPlainSchema(schema)) return !foreign(schema)
  const parts = [schema.body, schema.querystring, schema.query, schema.params, schema.headers]
  const response = schema.response
  parts.push(response)
  for (const value of isPlainSchema(response) ? Object.values(response) : []) {
    parts.push(value)
    const content = isPlainSchema(value) ? asObject(value.content) : undefined
    for (const media of Object.values(content ?? {})) parts.push(asObject(media)?.schema)
  }
  return !parts.some(foreign)
}

/**
 * Turns the descriptions on when `@fastify/swagger` is registered; only then is the document's
 * module loaded.
 */
export async function installOpenapi(
  fastify: FastifyInstance,
  plan: OpenapiPlan,
): Promise<boolean> {
  if (!fastify.hasDecorator('swagger')) return false
  const { describeInDocument } = await import('./openapi-document.js')
  if (plan.errors !== false)
    fastify.addSchema({ $id: ERROR_SCHEMA_ID, ...errorBodySchema(plan.errors) })
  const ours = new WeakSet<SwaggerTransform>()
  // The URLs Fastify answers HEAD on (a GET's HEAD route, which @fastify/swagger leaves out).
  const heads = new Set<string>()
  const headServed = (url: string): boolean => heads.has(url)
  fastify.addHook('onRoute', function restwellOpenapi(this: FastifyInstance, route) {
    if ((Array.isArray(route.method) ? route.method : [route.method]).includes('HEAD')) {
      heads.add(route.url)
    }
    const access = schemaAccess(this, route)
    const describedBy = (): readonly RouteDescription[] => plan.conventions?.(this, route) ?? []
    describeRoute(route, plan, access, describedBy())
    const config = configOf(route)
    const own = config.swaggerTransform
    // `false`: the route shows its schema as given; ours already (a config object reused); a
    // twin is left out (its route is described): method override's, a version's unprefixed one.
    if (
      own === false ||
      ours.has(own as SwaggerTransform) ||
      overrideTwinOf(route) ||
      versionPairOf(route)?.prefixed === false
    ) {
      return
    }
    // A type provider's schemas reach the document through the app's transform
    // (`jsonSchemaTransform`), which a route's `swaggerTransform` takes the place of: without
    // it, such a route keeps the app's.
    if (typeof own !== 'function' && plan.transform === undefined && !jsonSchemaOnly(route.schema))
      return
    const transform = swaggerTransformFor(plan, own, describeInDocument, headServed, describedBy)
    ours.add(transform)
    route.config = { ...route.config, swaggerTransform: transform } as RouteOptions['config']
  })
  return true
}

/** An OpenAPI document's top: `info`, `servers`, `tags`, `components`... */
export type OpenapiTop = Record<string, unknown>

/**
 * Options for `@fastify/swagger` that keep shared schemas under their `$id` in the document
 * (`#/components/schemas/RestwellError`, not `def-0`); everything else restwell adds needs no
 * option: `app.register(swagger, restwellOpenapi({ info: { title: 'Books', version: '1.0.0' } }))`.
 */
export function restwellOpenapi(openapi: OpenapiTop = {}): {
  openapi: OpenapiTop
  refResolver: {
    buildLocalReference: (json: Json, baseUri: unknown, fragment: unknown, i: number) => string
  }
} {
  return {
    openapi,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  }
}
