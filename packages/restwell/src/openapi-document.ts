/**
 * What the OpenAPI document shows and Fastify never compiles: each representation negotiation
 * produces, every status and header a convention answers with, operationIds, tags, security,
 * HEAD and OPTIONS. Applied through `@fastify/swagger`'s per-route `config.swaggerTransform`,
 * which also receives the document being built, so route schemas (and so validation and
 * serialization) stay as they are and the app needs no swagger option of restwell's.
 */
import type { RouteDescription } from '@restwell/core'
import { STANDARD_METHODS } from '@restwell/core/internal'
import { sortMethods } from '@restwell/methods'
import type { RouteOptions } from 'fastify'

type Json = Record<string, unknown>

/** The shared error body schema's `$id`, as `openapi.ts` registers it. */
const ERROR_REF = { $ref: 'RestwellError#' }

/** What the document transform knows of the conventions on, beyond the route's own schema. */
export interface DocumentPlan {
  /** The error body form (`problem`: problem+json and problem+xml), or false: no errors plugin. */
  errors: 'problem' | 'other' | false
  /** Negotiation: the media types every route produces, 300 choices, negotiated errors. */
  negotiation: false | { produces: readonly string[]; choices: boolean; errors: boolean }
  /** `@restwell/methods` answers OPTIONS on every path. */
  autoOptions: boolean
  /**
   * `@restwell/auth`'s `hideRoutes`: the answers of no route (restwell's OPTIONS of each path,
   * as a 404 or 405) need a Bearer token. A route's own security its conventions say.
   */
  hideRoutes: boolean
  /** `@restwell/versioning`: a `/v<N>/...` route is tagged `v<N>`. */
  versioning: boolean
  /** The error body's schema, inline, for what the document gains outside any route. [none] */
  errorSchema?: Json | undefined
}

const str = { type: 'string' }
const strings = { type: 'array', items: str }
const header = (description: string, schema: Json = str): Json => ({ ...schema, description })

const ACCEPT_QUERY_TEXT =
  'The media types a QUERY to this path takes (RFC 10008 §3: an RFC 9651 List, e.g. `application/json`)'

// ------------------------------------------------------------------ representations

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `schema` with more properties when it lists its own; else an open object of them. */
function withProperties(schema: Json, properties: Json, required: string[] = []): Json {
  const own = Array.isArray(schema.required) ? (schema.required as string[]) : []
  const all = [...own, ...required]
  const base = isObject(schema.properties) ? schema : { type: 'object' }
  return {
    ...base,
    ...(all.length > 0 ? { required: all } : {}),
    properties: { ...(base.properties as Json | undefined), ...properties },
  }
}

/** `schema` without one of its properties (JSON:API keeps the id out of `attributes`). */
function withoutProperty(schema: Json, name: string): Json {
  if (!isObject(schema.properties)) return { type: 'object' }
  const { [name]: _dropped, ...properties } = schema.properties
  const copy: Json = { ...schema, properties }
  if (Array.isArray(schema.required))
    copy.required = (schema.required as string[]).filter((n) => n !== name)
  if ((copy.required as unknown[] | undefined)?.length === 0) delete copy.required
  delete copy.title
  return copy
}

const halLink = { type: 'object', required: ['href'], properties: { href: str } }
const halLinks = (required: string[]): Json => ({
  type: 'object',
  ...(required.length > 0 ? { required } : {}),
  properties: { self: halLink },
  additionalProperties: halLink,
})
const sirenLinks = {
  type: 'array',
  items: { type: 'object', required: ['rel', 'href'], properties: { rel: strings, href: str } },
}

function jsonApiResource(item: Json, idField: string): Json {
  return {
    type: 'object',
    required: ['type', 'attributes'],
    properties: {
      type: str,
      id: str,
      attributes: withoutProperty(item, idField),
      meta: { type: 'object' },
      links: { type: 'object', properties: { self: str } },
    },
  }
}

/** The item schema of a page envelope `{ data: [item], ... }` (an open object otherwise). */
function itemOf(page: Json): Json {
  const data = isObject(page.properties) ? page.properties.data : undefined
  return isObject(data) && isObject(data.items) ? data.items : { type: 'object' }
}

/**
 * The schema of a body in each representation of `@restwell/negotiation`, from the JSON one:
 * XML (the same fields), HAL (`_links`; a page's items under `_embedded`), JSON:API (`data`
 * resource objects) and Siren (an entity; a page's items as `entities`).
 */
export function representationSchemas(
  json: Json,
  page: boolean,
  idField = 'id',
): Record<string, Json> {
  const xml = { ...json, xml: { name: 'response' } }
  if (!page) {
    return {
      'application/json': json,
      'application/xml': xml,
      'application/hal+json': withProperties(json, { _links: halLinks(['self']) }, ['_links']),
      'application/vnd.api+json': {
        type: 'object',
        required: ['data'],
        properties: { data: jsonApiResource(json, idField), links: { type: 'object' } },
      },
      'application/vnd.siren+json': {
        type: 'object',
        required: ['class', 'properties', 'links'],
        properties: { class: strings, properties: json, links: sirenLinks },
      },
    }
  }
  const item = itemOf(json)
  return {
    'application/json': json,
    'application/xml': xml,
    'application/hal+json': {
      type: 'object',
      required: ['_links', '_embedded'],
      properties: {
        _links: halLinks(['self']),
        _embedded: {
          type: 'object',
          additionalProperties: {
            type: 'array',
            items: withProperties(item, { _links: halLinks([]) }),
          },
        },
      },
    },
    'application/vnd.api+json': {
      type: 'object',
      required: ['data', 'links'],
      properties: {
        data: { type: 'array', items: jsonApiResource(item, idField) },
        links: { type: 'object', required: ['self'], properties: { self: str } },
        meta: { type: 'object' },
      },
    },
    'application/vnd.siren+json': {
      type: 'object',
      required: ['class', 'properties', 'links'],
      properties: {
        class: strings,
        properties: { type: 'object' },
        entities: {
          type: 'array',
          items: {
            type: 'object',
            required: ['class', 'rel', 'properties'],
            properties: { class: strings, rel: strings, properties: item, links: sirenLinks },
          },
        },
        links: sirenLinks,
      },
    },
  }
}

/** What a convention says an answer of one status carries (`RouteDescription.responses`). */
type Answer = NonNullable<NonNullable<RouteDescription['responses']>[number][2]>
type Problem = NonNullable<Answer['problem']>

/** The problem body of a type a convention names: the error body, that `type` and its members. */
function problemSchema(problems: readonly Problem[]): Json {
  return {
    allOf: [
      ERROR_REF,
      ...problems.map(({ type, members }) => ({
        type: 'object',
        required: ['type', ...Object.keys(members)],
        properties: { type: { type: 'string', enum: [type] }, ...members },
      })),
    ],
  }
}

/**
 * The error body in each form an error can take (`forms`: negotiated ones too); in the problem
 * form, of the problem types `problems` names (every answer of the status has them).
 */
export function errorContent(plan: DocumentPlan, problems: readonly Problem[] = []): Json {
  const problem = plan.errors === 'problem'
  const content: Json = problem
    ? {
        'application/problem+json': {
          schema: problems.length === 0 ? ERROR_REF : problemSchema(problems),
        },
      }
    : { 'application/json': { schema: ERROR_REF } }
  if (plan.negotiation !== false && plan.negotiation.errors) {
    content[problem ? 'application/problem+xml' : 'application/xml'] = {
      schema: { type: 'object', xml: { name: problem ? 'problem' : 'error' } },
    }
    content['application/hal+json'] = { schema: ERROR_REF }
    content['application/vnd.api+json'] = {
      schema: {
        type: 'object',
        required: ['errors'],
        properties: { errors: { type: 'array', items: { type: 'object' } } },
      },
    }
    content['application/vnd.siren+json'] = {
      schema: {
        type: 'object',
        required: ['class', 'properties'],
        properties: { class: strings, properties: { type: 'object' } },
      },
    }
  }
  return content
}

// ------------------------------------------------------------------ one route

function methodOf(route: RouteOptions): string {
  return Array.isArray(route.method) ? String(route.method[0]) : String(route.method)
}

function words(segment: string): string {
  return segment
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')
}

/**
 * A stable, unique operationId from the method and the path: `GET /v1/books/:id` →
 * `getV1BooksById`, `HEAD /jobs/{id}/result` → `headJobsByIdResult`.
 */
export function operationIdOf(method: string, url: string): string {
  const parts = url
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => {
      const param = /^:([^(]+)|^\{(.+)\}$/.exec(s)
      if (param !== null) return `By${words(param[1] ?? param[2]!)}`
      return s === '*' ? 'Wildcard' : words(s)
    })
  return `${method.toLowerCase()}${parts.join('') || 'Root'}`
}

/** The tag of an untagged route: its first static segment past a `/v<N>` prefix. */
export function tagOf(url: string): string {
  const segments = url.split('/').filter((s) => s.length > 0 && !/^[:{*]/.test(s))
  const first = /^v\d+$/.test(segments[0] ?? '') ? segments[1] : segments[0]
  return first ?? 'root'
}

/** The route's tag: `v<N>` under versioning for a `/v<N>/...` route, else `tagOf`. */
function routeTag(url: string, plan: DocumentPlan): string {
  const version = plan.versioning ? /^\/v(\d+)(?:\/|$)/.exec(url) : null
  return version === null ? tagOf(url) : `v${version[1]}`
}

function configOf(route: RouteOptions): Json {
  return (route.config ?? {}) as Json
}

/** The media types a negotiated route produces (its `config.negotiation.produces` or all). */
function producesOf(route: RouteOptions, plan: DocumentPlan): readonly string[] | undefined {
  const own = configOf(route).negotiation
  if (plan.negotiation === false || own === false) return undefined
  const produces = isObject(own) ? own.produces : undefined
  return Array.isArray(produces) ? (produces as string[]) : plan.negotiation.produces
}

/** The 2xx body in every representation the route produces. */
function negotiatedContent(
  schema: Json,
  produces: readonly string[],
  route: RouteOptions,
): Json | undefined {
  const config = configOf(route)
  const page = config.pagination !== undefined && config.pagination !== false
  const own = config.negotiation
  const idField = isObject(own) && typeof own.idField === 'string' ? own.idField : 'id'
  const { description: _d, headers: _h, ...json } = schema
  const forms = representationSchemas(json, page, idField)
  const content: Json = {}
  for (const type of produces) content[type] = { schema: forms[type] ?? { type: 'string' } }
  return content
}

const STATUS_HEADERS: Readonly<Record<string, Json>> = {
  '300': { location: header('The default choice') },
  '303': { location: header('Where the result is') },
  // Whoever refuses the body (negotiation, the route itself) names what it takes (RFC 9110 §15.5.16).
  '415': { accept: header('The media types this route accepts') },
}

const CHOICES = {
  type: 'object',
  required: ['choices'],
  properties: {
    choices: {
      type: 'array',
      items: { type: 'object', required: ['type', 'href'], properties: { type: str, href: str } },
    },
  },
}

function isErrorResponse(response: unknown): boolean {
  if (!isObject(response) || !isObject(response.content)) return false
  const only = Object.values(response.content)
  return only.length === 1 && isObject(only[0]) && isObject(only[0].schema)
    ? only[0].schema.$ref === ERROR_REF.$ref
    : false
}

/** What the conventions say an answer of `status` carries. */
function describedAnswers(described: readonly RouteDescription[], status: string): Answer[] {
  return described.flatMap((one) =>
    (one.responses ?? []).flatMap(([own, , answer]) =>
      String(own) === status && answer !== undefined ? [answer] : [],
    ),
  )
}

/** Headers a convention describes, as the document writes them. */
function describedHeaders(list: NonNullable<RouteDescription['answerHeaders']>): Json {
  const headers: Json = {}
  for (const [name, description, type] of list) {
    headers[name.toLowerCase()] = header(description, { type: type ?? 'string' })
  }
  return headers
}

/**
 * The headers a response carries besides those its status always has: those the conventions
 * send on every answer of the route, and on an answer of this status.
 */
function extraHeaders(status: string, method: string, described: readonly RouteDescription[]) {
  const success = status.startsWith('2')
  const headers: Json = {
    ...STATUS_HEADERS[status],
    ...describedHeaders(described.flatMap((one) => one.answerHeaders ?? [])),
    ...describedHeaders(describedAnswers(described, status).flatMap((a) => a.headers ?? [])),
    ...describedHeaders(
      described.flatMap((one) =>
        (one.statusHeaders ?? []).flatMap(([own, list]) =>
          String(own) === status || (own === 'success' && success) ? list : [],
        ),
      ),
    ),
  }
  if (success && (status === '201' || status === '202')) {
    headers.location = header('The created resource (201) or the job status resource (202)')
  }
  if (success && method === 'QUERY') {
    headers.location = header(
      'A URL whose GET lists the same result, where the route names one (RFC 10008 §2)',
    )
  }
  return headers
}

/** A merge patch of a resource: its fields, none required (RFC 7396: `null` removes one). */
function mergePatchSchema(resource: Json): Json {
  const { required: _r, title: _t, description: _d, headers: _h, ...rest } = resource
  return { ...rest, description: 'JSON Merge Patch (RFC 7396) of the resource' }
}

/** The request body: a merge patch's own schema, binary uploads (`schema.consumes`). */
function requestBody(schema: Json, response: Json): Json | undefined {
  const body = schema.body
  if (isObject(body) && isObject(body.content)) {
    const merge = body.content['application/merge-patch+json']
    const resource = response['200']
    if (isObject(merge) && isObject(resource) && isObject(resource.properties)) {
      return {
        ...body,
        content: {
          ...body.content,
          'application/merge-patch+json': { schema: mergePatchSchema(resource) },
        },
      }
    }
    return undefined
  }
  const consumes = schema.consumes
  if (body !== undefined || !Array.isArray(consumes) || consumes.length === 0) return undefined
  const content: Json = {}
  for (const type of consumes as string[]) {
    content[type] = { schema: { type: 'string', format: 'binary' } }
  }
  return { content }
}

/** What the conventions say protects a route (`RouteDescription.security`). */
type Security = NonNullable<RouteDescription['security']>

function securitiesOf(described: readonly RouteDescription[]): Security[] {
  return described.flatMap((one) => (one.security === undefined ? [] : [one.security]))
}

/** The requirement of the schemes the conventions say protect the route, or undefined: none. */
function requirementOf(described: readonly RouteDescription[]): Json[] | undefined {
  const list = securitiesOf(described).map(({ name, scopes }) => ({ [name]: [...scopes] }))
  return list.length === 0 ? undefined : list
}

/** OpenAPI 3.0 allows scopes in a requirement only on OAuth2 and OpenID Connect schemes. */
const SCOPED = new Set(['oauth2', 'openIdConnect'])

/**
 * The security requirement without scopes on a scheme a convention describes that takes none
 * (3.1 allows role names there, which Spectral still flags): the scopes are named in the
 * description instead.
 */
function securityFor(
  security: unknown,
  described: readonly RouteDescription[],
): { security: unknown; scopes: string[] } {
  if (!Array.isArray(security)) return { security, scopes: [] }
  const unscoped = new Set(
    securitiesOf(described)
      .filter(({ scheme }) => !SCOPED.has(String(scheme.type)))
      .map(({ name }) => name),
  )
  const scopes: string[] = []
  const fixed = security.map((requirement: Json) =>
    Object.fromEntries(
      Object.entries(requirement).map(([name, list]) => {
        if (unscoped.has(name) && Array.isArray(list)) {
          scopes.push(...(list as string[]))
          return [name, []]
        }
        return [name, list]
      }),
    ),
  )
  return { security: fixed, scopes }
}

/**
 * The route's schema as the document shows it (a copy; the route keeps its own): every
 * representation in each 2xx, errors in each form, the statuses and headers the conventions
 * answer with, the request body of each write, an operationId and tags, Bearer scopes named.
 * `method`: the route's first; `path`: where the document shows it (named and tagged by it);
 * `described`: what the conventions say of the route (their `describe`).
 */
export function documentSchema(
  given: Json | undefined,
  route: RouteOptions,
  plan: DocumentPlan,
  method = methodOf(route),
  path = route.url,
  described: readonly RouteDescription[] = [],
): Json {
  const schema: Json = { ...given }
  schema.operationId ??= operationIdOf(method, path)
  schema.tags ??= [routeTag(path, plan)]
  const { security, scopes } = securityFor(schema.security ?? requirementOf(described), described)
  if (security !== undefined) schema.security = security
  if (scopes.length > 0) {
    const line = `Requires the Bearer token's scope${scopes.length > 1 ? 's' : ''} ${scopes.map((s) => `\`${s}\``).join(', ')}.`
    schema.description =
      typeof schema.description === 'string' ? `${schema.description}\n\n${line}` : line
  }
  const givenResponse: Json = { ...(isObject(schema.response) ? schema.response : {}) }
  // A body a convention describes is the document's alone; the route's own response wins.
  for (const [status, description, answer] of described.flatMap((one) => one.responses ?? [])) {
    if (answer?.content === undefined) continue
    const headers =
      answer.headers === undefined ? {} : { headers: describedHeaders(answer.headers) }
    const value = { description, ...headers, ...answer.content }
    const own = givenResponse[status]
    givenResponse[status] = isObject(own) ? { ...value, ...own } : value
  }
  // A route that names no success has one all the same, with what every answer carries.
  const everyAnswer = described.some((one) => (one.answerHeaders ?? []).length > 0)
  if (everyAnswer && !Object.keys(givenResponse).some((status) => status.startsWith('2'))) {
    givenResponse['200'] = { description: 'OK' }
  }
  const response: Json = {}
  const produces = producesOf(route, plan)
  const reads = method === 'GET' || method === 'HEAD'
  for (const [status, value] of Object.entries(givenResponse)) {
    if (!isObject(value)) {
      response[status] = value
      continue
    }
    let out: Json = { ...value }
    if (
      status.startsWith('2') &&
      produces !== undefined &&
      out.type !== 'null' &&
      !isObject(out.content) &&
      out.$ref === undefined
    ) {
      const content = negotiatedContent(out, produces, route)
      out = { description: out.description ?? 'OK', headers: out.headers, content }
    }
    if (isErrorResponse(out)) {
      const problems = describedAnswers(described, status).flatMap((a) => a.problem ?? [])
      out = { ...out, content: errorContent(plan, problems) }
    }
    if (status === '206' && out.type === 'null') {
      const types =
        produces ??
        Object.keys(
          isObject(response['200']) && isObject((response['200'] as Json).content)
            ? ((response['200'] as Json).content as Json)
            : {},
        )
      const content: Json = {}
      for (const type of types.length > 0 ? types : ['application/octet-stream'])
        content[type] = { schema: { type: 'string', format: 'binary' } }
      out = { description: out.description, content }
    }
    const headers = {
      ...extraHeaders(status, method, described),
      ...(isObject(out.headers) ? out.headers : {}),
    }
    if (Object.keys(headers).length > 0) out.headers = headers
    response[status] = out
  }
  if (
    reads &&
    produces !== undefined &&
    plan.negotiation !== false &&
    plan.negotiation.choices &&
    response['300'] === undefined
  ) {
    response['300'] = {
      description: 'Multiple Choices: the representations, one `href` each (`?format=choices`)',
      headers: extraHeaders('300', method, described),
      content: { 'application/json': { schema: CHOICES } },
    }
  }
  if (plan.errors !== false && response.default === undefined) {
    const headers = extraHeaders('default', method, described)
    response.default = {
      description: 'Any other error the route itself raises, in the error form',
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
      content: errorContent(plan),
    }
  }
  if (method === 'HEAD') {
    for (const [status, value] of Object.entries(response)) {
      if (!isObject(value)) continue
      const { content: _c, ...rest } = value
      const { description, headers } = rest
      response[status] = { description: description ?? 'No body (HEAD)', headers, type: 'null' }
    }
  }
  if (Object.keys(response).length > 0) schema.response = response
  const body = requestBody(schema, givenResponse)
  if (body !== undefined) schema.body = body
  return schema
}

// ------------------------------------------------------------------ the whole document

/** The methods of a path item, in the order `Allow` lists them. */
const ITEM_ORDER = STANDARD_METHODS.map((method) => method.toLowerCase())
/** Its operations but OPTIONS (restwell's own on every path). */
const OPERATIONS = ITEM_ORDER.filter((method) => method !== 'options')

/** OpenAPI 3.2 has the `query` operation; 3.0 and 3.1 have no place for a QUERY route. */
function describesQuery(document: Json): boolean {
  const minor = /^3\.(\d+)/.exec(String(document.openapi))?.[1]
  return minor !== undefined && Number(minor) >= 2
}

/**
 * The path of a route URL in the document, as `@fastify/swagger` writes it (its exported
 * `formatParamUrl`): `:id` and `:id(^\\d+)` → `{id}`, an unnamed `(regexp)` → `{regexp1}`,
 * `*` → `{*}`, `::` → `:`.
 */
export function formatParamUrl(url: string): string {
  let state: 'skip' | 'colon' | 'regexp' = 'skip'
  let path = ''
  let param = ''
  let level = 0
  let unnamed = 0
  for (let i = 0; i < url.length; i++) {
    const char = url[i]!
    if (state === 'colon') {
      if (/[A-Za-z0-9_]/.test(char)) param += char
      else if (char === '(') {
        state = 'regexp'
        level++
      } else {
        state = 'skip'
        path += `{${param}}${char}`
        param = ''
      }
    } else if (state === 'regexp') {
      if (char === '(') level++
      else if (char === ')') level--
      if (level === 0) {
        state = 'skip'
        path += `{${param === '' ? `regexp${++unnamed}` : param}}`
        param = ''
      }
    } else if (char === ':' && url[i + 1] === ':') {
      path += char
      i++
    } else if (char === ':') state = 'colon'
    else if (char === '(') {
      state = 'regexp'
      level++
    } else path += char === '*' ? '{*}' : char
  }
  return state === 'colon' && param !== '' ? `${path}{${param}}` : path
}

/**
 * The key of a route's path item, as `@fastify/swagger` makes it with its default
 * `stripBasePath`: the path of each server URL (variables at their default) taken off the
 * front, then `formatParamUrl`.
 */
export function pathKeyOf(url: string, servers: unknown): string {
  let path = url
  for (const server of Array.isArray(servers) ? servers : []) {
    if (!isObject(server) || typeof server.url !== 'string') continue
    const variables = isObject(server.variables) ? server.variables : {}
    const resolved = server.url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
      const variable = variables[name]
      return isObject(variable) && typeof variable.default === 'string' ? variable.default : whole
    })
    let base = resolved
    if (!resolved.startsWith('/')) {
      try {
        base = new URL(resolved).pathname
      } catch {
        continue
      }
    }
    if (base !== '/' && path.startsWith(base)) path = path.replace(base, '')
  }
  return formatParamUrl(path)
}

/**
 * A route's operation, finished at the next transform (once @fastify/swagger has built it):
 * each of its methods gets its own operationId, and HEAD becomes GET's operation.
 */
interface Pending {
  path: string
  /** The route's methods: @fastify/swagger shares one operation among them. */
  methods: string[]
  id: string
  /** The id each other method's operation gets. */
  others: [method: string, id: string][]
  /** The HEAD operation restwell put there, to become the GET's without bodies. */
  head?: { id: string; placeholder: Json }
}

/** What one build of the document has gained so far (the transforms run in route order). */
interface Build {
  ids: Set<string>
  /** `<path> <method>` → its operationId. */
  owners: Map<string, string>
  /** The OPTIONS operation restwell put on a path, and the methods it lists. */
  options: Map<string, { operation: Json; methods: Set<string> }>
  pending: Pending[]
}

/** Per document being built (`openapiObject`): a new one for each build. */
const builds = new WeakMap<object, Build>()

function buildOf(document: Json): Build {
  let build = builds.get(document)
  if (build === undefined) {
    build = { ids: new Set(), owners: new Map(), options: new Map(), pending: [] }
    builds.set(document, build)
  }
  return build
}

/** The operationId of `<path> <method>`: the one it already has, else `wanted` made unique. */
function idFor(build: Build, owner: string, wanted: string): string {
  const known = build.owners.get(owner)
  if (known !== undefined) return known
  let id = wanted
  for (let n = 2; build.ids.has(id); n++) id = `${wanted}${n}`
  build.ids.add(id)
  build.owners.set(owner, id)
  return id
}

function pathsOf(document: Json): Json {
  if (!isObject(document.paths)) document.paths = {}
  return document.paths as Json
}

/** A GET's operation as HEAD's: the same, without bodies. */
function headOf(get: Json, id: string): Json {
  const { requestBody: _body, responses, ...rest } = get
  const out: Json = {}
  for (const [status, response] of Object.entries((responses ?? {}) as Record<string, Json>)) {
    const { content: _content, links: _links, ...kept } = response
    out[status] = kept
  }
  return { ...rest, operationId: id, responses: out }
}

/**
 * Finishes the operations built since the last transform: each method of a route with several
 * gets an operationId of its own, and HEAD becomes GET's operation without bodies. Where the
 * GET's operation is not (hidden by a rule of the app's, a path restwell did not foresee), the
 * HEAD and OPTIONS restwell put there go.
 */
function settle(document: Json, build: Build): void {
  const paths = pathsOf(document)
  for (const pending of build.pending) {
    const item = paths[pending.path]
    if (!isObject(item)) continue
    const built = item[pending.methods[0]!]
    if (!isObject(built) || built.operationId !== pending.id) {
      if (item.head === pending.head?.placeholder) delete item.head
      const options = build.options.get(pending.path)?.operation
      if (item.options === options && OPERATIONS.every((m) => item[m] === undefined)) {
        delete paths[pending.path]
      }
      continue
    }
    for (const [method, id] of pending.others) {
      if (item[method] === built) {
        item[method] = method === 'head' ? headOf(built, id) : { ...built, operationId: id }
      }
    }
    const ours = pending.head
    if (ours !== undefined) {
      // Ours, or the one @fastify/swagger built from its copy of the route (`exposeHeadRoutes`,
      // a GET with an operationId of its own) without restwell's transform.
      const head = item.head as Json
      if (head === ours.placeholder || head.operationId === ours.id) {
        item.head = headOf(built, ours.id)
      }
    }
    paths[pending.path] = inOrder(item)
  }
  build.pending = []
}

/** A path item's keys in the usual order: the rest, then GET, HEAD, ..., DELETE, OPTIONS. */
function inOrder(item: Json): Json {
  const rank = (key: string): number => ITEM_ORDER.indexOf(key)
  return Object.fromEntries(Object.entries(item).sort(([a], [b]) => rank(a) - rank(b)))
}

/** `@fastify/swagger`'s header objects: the schema, its description beside it. */
function headerObjects(headers: Json): Json {
  const out: Json = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!isObject(value)) continue
    const { description, ...schema } = value
    out[name] = description === undefined ? { schema } : { schema, description }
  }
  return out
}

/** The path parameters of `path`, each with its schema in `params` when a plain one. */
function pathParameters(path: string, params: unknown): Json[] {
  const properties = isObject(params) && isObject(params.properties) ? params.properties : {}
  return [...path.matchAll(/\{([^{}]+)\}/g)].map(([, name]) => {
    const own = properties[name!]
    const plain: Json = isObject(own) && !JSON.stringify(own).includes('$ref') ? own : str
    const { description, ...schema } = plain
    return {
      name,
      in: 'path',
      required: true,
      schema,
      ...(typeof description === 'string' ? { description } : {}),
    }
  })
}

/**
 * HEAD's operation until GET's is built (the document's last route keeps it): the route's HEAD
 * description, its path parameters, each status with its headers.
 */
function headPlaceholder(schema: Json, path: string): Json {
  const operation: Json = {}
  for (const key of ['summary', 'tags', 'description', 'deprecated', 'security']) {
    if (schema[key] !== undefined) operation[key] = schema[key]
  }
  const parameters = pathParameters(path, schema.params)
  if (parameters.length > 0) operation.parameters = parameters
  const responses: Json = {}
  const given = isObject(schema.response) ? schema.response : { 200: {} }
  for (const [status, response] of Object.entries(given)) {
    if (!isObject(response)) continue
    responses[status] = {
      description: response.description ?? 'Default Response',
      ...(isObject(response.headers) ? { headers: headerObjects(response.headers) } : {}),
    }
  }
  operation.responses = responses
  return operation
}

/**
 * OPTIONS on the route's path (once per path; an OPTIONS route of the app's own wins). It is
 * about the path's methods, not a resource: any value of a path parameter is answered, so each
 * is a plain string. With `hideRoutes` it needs a token, as any answer of no route does.
 */
function addOptions(
  document: Json,
  build: Build,
  path: string,
  methods: string[],
  first: { tags: unknown },
  plan: DocumentPlan,
): void {
  const paths = pathsOf(document)
  const item = isObject(paths[path]) ? (paths[path] as Json) : undefined
  let entry = build.options.get(path)
  if (entry === undefined) {
    if (item?.options !== undefined) return
    const operation: Json = {
      operationId: idFor(build, `${path} options`, operationIdOf('OPTIONS', path)),
      tags: first.tags,
      summary: 'The methods this path supports',
      description: 'Answered by restwell on every path: `Allow` lists the methods.',
    }
    const parameters = pathParameters(path, undefined)
    if (parameters.length > 0) operation.parameters = parameters
    if (plan.hideRoutes) {
      operation.security = [{ bearerAuth: [] }]
      defineSchemes(document, operation.security, [
        { name: 'bearerAuth', scheme: BEARER, scopes: [] },
      ])
    }
    entry = { operation, methods: new Set() }
    build.options.set(path, entry)
    paths[path] = { ...item, options: operation }
  } else if (item?.options !== entry.operation) return
  for (const method of methods) entry.methods.add(method.toUpperCase())
  const allow = sortMethods([...entry.methods, 'OPTIONS'])
  const headers: Json = {
    allow: { description: 'The methods this path supports', schema: str },
    'accept-patch': {
      description: 'The patch formats, on a path with a patch route',
      schema: str,
    },
  }
  if (entry.methods.has('QUERY'))
    headers['accept-query'] = { description: ACCEPT_QUERY_TEXT, schema: str }
  const responses: Json = {
    '200': { description: `OK: \`Allow: ${allow.join(', ')}\``, headers },
  }
  if (entry.operation.security !== undefined) {
    responses['401'] = {
      description: 'Unauthorized: a valid Bearer token is needed to learn the methods',
      headers: { 'www-authenticate': { description: BEARER_CHALLENGE, schema: str } },
      ...(plan.errorSchema === undefined
        ? {}
        : {
            content: {
              [plan.errors === 'problem' ? 'application/problem+json' : 'application/json']: {
                schema: plan.errorSchema,
              },
            },
          }),
    }
  }
  entry.operation.responses = responses
}

/** Every tag `tags` names is defined at the top of the document. */
function defineTags(document: Json, tags: unknown): void {
  const list = Array.isArray(document.tags) ? (document.tags as unknown[]) : []
  const names = new Set(list.map((tag) => (isObject(tag) ? tag.name : undefined)))
  const missing = (Array.isArray(tags) ? tags : []).filter(
    (tag): tag is string => typeof tag === 'string' && !names.has(tag),
  )
  if (missing.length > 0) document.tags = [...list, ...missing.map((name) => ({ name }))]
}

/** `@restwell/auth`'s challenge, on the 401 of an OPTIONS restwell answers (`hideRoutes`). */
const BEARER_CHALLENGE = '`Bearer` challenge (RFC 6750)'
const BEARER = { type: 'http', scheme: 'bearer', description: 'RFC 6750 Bearer token' }

/**
 * Each scheme a convention describes among the security schemes, once the operation's
 * requirement names it (the app's own of that name is kept).
 */
function defineSchemes(document: Json, security: unknown, described: readonly Security[]): void {
  const named = (name: string): boolean =>
    Array.isArray(security) && security.some((r) => isObject(r) && r[name] !== undefined)
  for (const { name, scheme } of described) {
    const components = isObject(document.components) ? document.components : {}
    const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {}
    if (!named(name) || schemes[name] !== undefined) continue
    document.components = { ...components, securitySchemes: { ...schemes, [name]: scheme } }
  }
}

/** A schema `@fastify/swagger` leaves out of the document (its default hiding rules). */
function hidden(schema: Json): boolean {
  return schema.hide === true || (Array.isArray(schema.tags) && schema.tags.includes('X-HIDDEN'))
}

/**
 * The route's schema as the document shows it (`documentSchema`), and what the document being
 * built gains with it: the operationId made unique, its tags defined at the top, the Bearer
 * scheme, OPTIONS on its path (`autoOptions`), HEAD beside a GET (`headServed`: Fastify answers
 * HEAD there). `url` is the route's URL as the transforms before this one left it; `described`:
 * what the conventions say of the route.
 */
export function describeInDocument(
  document: Json,
  given: Json | undefined,
  route: RouteOptions,
  url: string,
  plan: DocumentPlan,
  headServed: boolean,
  described: readonly RouteDescription[] = [],
): Json {
  const build = buildOf(document)
  settle(document, build)
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) =>
    String(m).toLowerCase(),
  )
  const path = pathKeyOf(url, document.servers)
  const schema = documentSchema(given, route, plan, methods[0]!.toUpperCase(), path, described)
  if (hidden(schema)) return schema
  // @fastify/swagger writes a `query` operation whatever the version: before 3.2 it goes.
  if (methods.includes('query') && !describesQuery(document)) return { ...schema, hide: true }
  const own = typeof given?.operationId === 'string' ? given.operationId : undefined
  const wanted = (method: string): string =>
    own === undefined ? operationIdOf(method, path) : `${own}-${method}`
  schema.operationId = idFor(build, `${path} ${methods[0]}`, schema.operationId as string)
  const pending: Pending = {
    path,
    methods,
    id: schema.operationId as string,
    others: methods.slice(1).map((m) => [m, idFor(build, `${path} ${m}`, wanted(m))]),
  }
  defineTags(document, schema.tags)
  defineSchemes(document, schema.security, securitiesOf(described))
  const head = headServed && methods.includes('get') && !methods.includes('head')
  if (head) {
    const found = pathsOf(document)[path]
    const item = isObject(found) ? found : {}
    if (item.head === undefined) {
      const id = idFor(build, `${path} head`, wanted('head'))
      const placeholder = {
        ...headPlaceholder(documentSchema(given, route, plan, 'HEAD', path, described), path),
        operationId: id,
      }
      pathsOf(document)[path] = { ...item, head: placeholder }
      pending.head = { id, placeholder }
    }
  }
  if (plan.autoOptions && !methods.includes('options')) {
    addOptions(
      document,
      build,
      path,
      head ? [...methods, 'head'] : methods,
      { tags: schema.tags },
      plan,
    )
  }
  build.pending.push(pending)
  return schema
}
