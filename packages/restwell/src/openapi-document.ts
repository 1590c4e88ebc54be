/**
 * What the OpenAPI document shows and Fastify never compiles: each representation negotiation
 * produces, every status and header a convention answers with, operationIds, tags, HEAD and
 * OPTIONS. Applied through `@fastify/swagger`'s per-route `config.swaggerTransform` and
 * `transformObject`, so route schemas (and so validation and serialization) stay as they are.
 */
import type { RouteOptions } from 'fastify'

type Json = Record<string, unknown>

/** The shared error body schema's `$id`, as `openapi.ts` registers it. */
const ERROR_REF = { $ref: 'RestwellError#' }

/** What the document transform knows of the conventions on, beyond the route's own schema. */
export interface DocumentPlan {
  /** The error body form (`problem`: problem+json and problem+xml), or false: no errors plugin. */
  errors: 'problem' | 'other' | false
  /** Negotiation: the media types every route produces, 300 choices, negotiated errors. */
  negotiation:
    | false
    | { produces: readonly string[]; choices: boolean; errors: boolean; languages: boolean }
  rateLimit: boolean
  conditional: boolean
  /** `@restwell/methods` answers OPTIONS on every path. */
  autoOptions: boolean
  /** `@restwell/jobs`' `basePath`: its status and result routes answer 303. [none] */
  jobs?: string | undefined
}

const str = { type: 'string' }
const strings = { type: 'array', items: str }
const header = (description: string, schema: Json = str): Json => ({ ...schema, description })

const RATE_LIMIT_HEADERS: Json = {
  'x-ratelimit-limit': header('Requests allowed in the window', { type: 'integer' }),
  'x-ratelimit-remaining': header('Requests left in the window', { type: 'integer' }),
  'x-ratelimit-reset': header('Seconds until the window resets', { type: 'integer' }),
}
const RETRY_AFTER: Json = { 'retry-after': header('Seconds to wait before retrying') }

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

/** The error body in each form an error can take (`forms`: negotiated ones too). */
export function errorContent(plan: DocumentPlan): Json {
  const problem = plan.errors === 'problem'
  const content: Json = {
    [problem ? 'application/problem+json' : 'application/json']: { schema: ERROR_REF },
  }
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
  '304': {
    etag: header('The current entity tag'),
    'last-modified': header('When the resource last changed'),
  },
  '401': { 'www-authenticate': header('`Bearer` challenge (RFC 6750)') },
  '405': { allow: header('The methods this path supports') },
  '406': { accept: header('The media types this route produces') },
  '415': { accept: header('The media types this route accepts') },
  '416': { 'content-range': header('`bytes */<size>`') },
  '429': RETRY_AFTER,
  '503': RETRY_AFTER,
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

/** The headers a response carries besides those its status always has. */
function extraHeaders(status: string, method: string, route: RouteOptions, plan: DocumentPlan) {
  const config = configOf(route)
  const headers: Json = { ...STATUS_HEADERS[status] }
  const rateLimited = plan.rateLimit && config.rateLimit !== false
  if (rateLimited) Object.assign(headers, RATE_LIMIT_HEADERS)
  const success = status.startsWith('2')
  if (success && (status === '201' || status === '202')) {
    headers.location = header('The created resource (201) or the job status resource (202)')
  }
  if (success && plan.conditional && config.conditional !== false && method !== 'DELETE') {
    headers.etag = header('Entity tag of this representation')
  }
  if (success && plan.negotiation !== false && plan.negotiation.languages) {
    headers['content-language'] = header('The language of the representation')
  }
  if (
    (status === '405' || status === '415') &&
    config.patch !== undefined &&
    config.patch !== false
  )
    headers['accept-patch'] = header('The patch formats this route accepts')
  if (status === '206') headers['content-range'] = header('`bytes <start>-<end>/<size>`')
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

/**
 * The security requirement without scopes on the Bearer scheme: OpenAPI 3.0 allows scopes only
 * on OAuth2 and OpenID Connect schemes (3.1 allows role names, which Spectral still flags), so
 * the scopes are named in the description instead.
 */
function securityFor(security: unknown): { security: unknown; scopes: string[] } {
  if (!Array.isArray(security)) return { security, scopes: [] }
  const scopes: string[] = []
  const fixed = security.map((requirement: Json) =>
    Object.fromEntries(
      Object.entries(requirement).map(([name, list]) => {
        if (name === 'bearerAuth' && Array.isArray(list)) {
          scopes.push(...(list as string[]))
          return [name, []]
        }
        return [name, list]
      }),
    ),
  )
  return { security: fixed, scopes }
}

/** The job status resource of `@restwell/jobs` (its `Job`). */
const JOB = {
  type: 'object',
  required: ['jobId', 'status', 'estimatedTime', 'createdAt', 'updatedAt'],
  properties: {
    jobId: str,
    status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
    estimatedTime: header('ISO 8601 duration'),
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    progress: { type: 'number', minimum: 0, maximum: 100 },
    error: { type: 'object', description: 'Why a failed job failed' },
  },
}

/** The answers of `@restwell/jobs`' routes: the status (200, 303 when done) and the result. */
function jobResponses(url: string, jobs: string | undefined): Json | undefined {
  if (jobs === undefined) return undefined
  const location = { location: header('The result') }
  if (url === `${jobs}/:id`) {
    return {
      200: { description: 'The job, not finished (or failed: `error`)', ...JOB },
      303: { description: 'See Other: the job succeeded', headers: location, ...JOB },
    }
  }
  if (url === `${jobs}/:id/result`) {
    return {
      303: {
        description: 'See Other: the result is a resource of its own',
        headers: location,
        type: 'null',
      },
      409: {
        description: 'Conflict: the job failed or is not finished (`Location`: its status)',
        content: { 'application/json': { schema: ERROR_REF } },
      },
    }
  }
  return undefined
}

/**
 * The route's schema as the document shows it (a copy; the route keeps its own): every
 * representation in each 2xx, errors in each form, the statuses and headers the conventions
 * answer with, the request body of each write, an operationId and tags, Bearer scopes named.
 */
export function documentSchema(
  given: Json | undefined,
  route: RouteOptions,
  plan: DocumentPlan,
): Json {
  const schema: Json = { ...given }
  const method = methodOf(route)
  const url = route.url
  schema.operationId ??= operationIdOf(method, url)
  schema.tags ??= [tagOf(url)]
  const { security, scopes } = securityFor(schema.security)
  if (security !== undefined) schema.security = security
  if (scopes.length > 0) {
    const line = `Requires the Bearer token's scope${scopes.length > 1 ? 's' : ''} ${scopes.map((s) => `\`${s}\``).join(', ')}.`
    schema.description =
      typeof schema.description === 'string' ? `${schema.description}\n\n${line}` : line
  }
  const givenResponse: Json = { ...(isObject(schema.response) ? schema.response : {}) }
  for (const [status, value] of Object.entries(jobResponses(url, plan.jobs) ?? {})) {
    const own = givenResponse[status]
    givenResponse[status] = isObject(own) ? { ...(value as Json), ...own } : value
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
    if (isErrorResponse(out)) out = { ...out, content: errorContent(plan) }
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
      ...extraHeaders(status, method, route, plan),
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
      headers: extraHeaders('300', method, route, plan),
      content: { 'application/json': { schema: CHOICES } },
    }
  }
  if (plan.errors !== false && response.default === undefined) {
    response.default = {
      description: 'Any other error the route itself raises, in the error form',
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

const OPERATIONS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const

/**
 * The whole document: OPTIONS on every path (`@restwell/methods` answers it) with `Allow`,
 * every tag an operation uses defined at the top, operationIds made unique.
 */
export function completeDocument(document: Json, autoOptions: boolean): Json {
  const paths = isObject(document.paths) ? document.paths : {}
  const tags = new Map<string, Json>()
  for (const tag of Array.isArray(document.tags) ? (document.tags as Json[]) : []) {
    if (typeof tag.name === 'string') tags.set(tag.name, tag)
  }
  const ids = new Set<string>()
  const out: Json = {}
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue
    const copy: Json = { ...item }
    const methods: string[] = []
    for (const name of OPERATIONS) {
      const op = copy[name]
      if (!isObject(op)) continue
      methods.push(name.toUpperCase())
      const base = typeof op.operationId === 'string' ? op.operationId : operationIdOf(name, path)
      let id = base
      for (let n = 2; ids.has(id); n++) id = `${base}${n}`
      ids.add(id)
      const opTags =
        Array.isArray(op.tags) && op.tags.length > 0 ? (op.tags as string[]) : [tagOf(path)]
      for (const tag of opTags) if (!tags.has(tag)) tags.set(tag, { name: tag })
      copy[name] = { ...op, operationId: id, tags: opTags }
    }
    if (autoOptions && copy.options === undefined && methods.length > 0) {
      const id = operationIdOf('options', path)
      ids.add(id)
      const first = copy[methods[0]!.toLowerCase()] as Json
      copy.options = {
        operationId: id,
        tags: first.tags,
        summary: 'The methods this path supports',
        description: 'Answered by restwell on every path: `Allow` lists the methods.',
        ...(Array.isArray(first.parameters)
          ? { parameters: (first.parameters as Json[]).filter((p) => p.in === 'path') }
          : {}),
        responses: {
          '200': {
            description: `OK: \`Allow: ${[...methods, 'OPTIONS'].join(', ')}\``,
            headers: {
              allow: { description: 'The methods this path supports', schema: str },
              'accept-patch': {
                description: 'The patch formats, on a path with a patch route',
                schema: str,
              },
            },
          },
        },
      }
    }
    out[path] = copy
  }
  return { ...document, tags: [...tags.values()], paths: out }
}
