/**
 * An app's own `transform` of `@fastify/swagger` (here fastify-type-provider-zod's
 * `jsonSchemaTransform`, and a plain one) runs first on the routes restwell describes, then
 * restwell's additions: the Zod schemas reach the document as JSON Schema, with everything
 * restwell adds around them.
 */
import SwaggerParser from '@apidevtools/swagger-parser'
import fastifySwagger, { type SwaggerTransform } from '@fastify/swagger'
import spectralCore from '@stoplight/spectral-core'
import spectralRulesets from '@stoplight/spectral-rulesets'
import { conditional } from '@restwell/conditional'
import { negotiation } from '@restwell/negotiation'
import type { RouteDescription, RouteEntry } from '@restwell/core'
import { servedMethods } from '@restwell/core/internal'
import Fastify, { type FastifyInstance } from 'fastify'
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod'
import tap, { test } from 'tap'
import { z } from 'zod'
import restwell from '../src/index.js'
import { installOpenapi, type OpenapiPlan, representationsOf } from '../src/openapi.js'

type Json = Record<string, unknown>
type Operation = {
  operationId?: string
  tags?: string[]
  security?: unknown
  parameters?: { name: string; in: string; schema?: Json }[]
  requestBody?: { content: Record<string, { schema: Json }> }
  responses: Record<string, { content?: Record<string, { schema: Json }> }>
}
type Doc = { paths: Record<string, Record<string, Operation>>; tags?: { name: string }[] }

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

/** What `@restwell/methods` and `@restwell/auth` (every route protected) say of each route. */
const SAID: RouteDescription[] = [
  {
    responses: [
      [
        405,
        'Method Not Allowed on this path (`Allow` lists the supported methods)',
        { headers: [['Allow', 'The methods this path supports']] },
      ],
    ],
  },
  {
    responses: [
      [
        401,
        'Unauthorized: missing or invalid Bearer token (`WWW-Authenticate`)',
        { headers: [['WWW-Authenticate', '`Bearer` challenge (RFC 6750)']] },
      ],
      [403, 'Forbidden: the token lacks a required scope'],
    ],
    security: {
      name: 'bearerAuth',
      scheme: { type: 'http', scheme: 'bearer', description: 'RFC 6750 Bearer token' },
      scopes: [],
    },
  },
]

/** What `@restwell/conditional` and `@restwell/negotiation` with their defaults say of a route. */
function conditionalSays(route: RouteEntry): RouteDescription[] {
  const config = route.config as { conditional?: unknown; negotiation?: unknown } | undefined
  const context = (own: unknown) =>
    ({ route, instance: {}, methods: servedMethods(route), config: own, name: route.url }) as never
  const said = [
    config?.conditional === false
      ? undefined
      : conditional.describe?.(context(config?.conditional), {
          options: conditional.options(undefined),
        } as never),
    config?.negotiation === false
      ? undefined
      : negotiation.describe?.(context(config?.negotiation), {
          options: negotiation.options({}),
        } as never),
  ]
  return said.filter((one) => one !== undefined)
}

const PLAN: OpenapiPlan = {
  errors: 'structured',
  auth: true,
  authByDefault: true,
  negotiation: true,
  versioning: true,
  representations: representationsOf(undefined),
  autoOptions: true,
  conventions: (_instance, route) => [...SAID, ...conditionalSays(route)],
}

const Book = z.object({ id: z.number().int(), title: z.string() })

/** A Zod app with swagger and the app's global transform. */
async function zodSwagger(): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  await app.register(fastifySwagger, {
    openapi: { info: { title: 'zod', version: '1.0.0' } },
    transform: jsonSchemaTransform,
  })
  return app
}

/** A Zod app: swagger with the app's transform, then restwell's descriptions. */
async function zodApp(transform: SwaggerTransform | undefined): Promise<Doc> {
  const app = await zodSwagger()
  await installOpenapi(app, transform === undefined ? PLAN : { ...PLAN, transform })
  const zod = app.withTypeProvider<ZodTypeProvider>()
  zod.get(
    '/v1/books/:id',
    { schema: { params: z.object({ id: z.coerce.number().int() }), response: { 200: Book } } },
    async () => ({ id: 1, title: 'x' }),
  )
  zod.post(
    '/v1/books',
    { schema: { body: Book.omit({ id: true }), response: { 201: Book } } },
    async (request, reply) => reply.code(201).send({ id: 2, title: request.body.title }),
  )
  zod.get('/v1/health', async () => 'ok')
  await app.ready()
  return app.swagger() as unknown as Doc
}

/** Spectral's `spectral:oas` errors, and its warnings about scopes, operationIds and tags. */
async function spectral(document: unknown): Promise<string[]> {
  const linter = new spectralCore.Spectral()
  linter.setRuleset({ extends: [[spectralRulesets.oas as never, 'recommended']] })
  const results = await linter.run(JSON.stringify(document))
  return results
    .filter(
      (r) => r.severity === 0 || /scope|operationId|operation-tag|security/.test(r.code.toString()),
    )
    .map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`)
}

test('a Zod app: the app transform first, then restwell', async (t) => {
  const doc = await zodApp(jsonSchemaTransform)
  await SwaggerParser.validate(structuredClone(doc) as never)
  t.same(await spectral(doc), [], 'Spectral: no error, nothing on scopes, ids or tags')
  const item = doc.paths['/v1/books/{id}']!
  const get = item.get!
  t.match(
    get.parameters?.find((p) => p.in === 'path'),
    { schema: { type: 'integer' }, in: 'path', name: 'id', required: true },
    'the Zod params, as JSON Schema',
  )
  const json = get.responses['200']!.content!['application/json']!.schema
  t.same(Object.keys(json.properties as Json), ['id', 'title'], 'the Zod response')
  t.same(
    Object.keys(get.responses['200']!.content!),
    [
      'application/json',
      'application/xml',
      'application/hal+json',
      'application/vnd.api+json',
      'application/vnd.siren+json',
    ],
    'every representation of it',
  )
  for (const status of ['304', '401', '404', '406', 'default'])
    t.ok(get.responses[status], `GET documents ${status}`)
  t.ok(
    get.parameters?.some((p) => p.name === 'if-none-match'),
    'the precondition headers, in the document only',
  )
  t.same(get.tags, ['v1'])
  t.same(get.security, [{ bearerAuth: [] }])
  t.equal(item.head?.operationId, 'headV1BooksById', 'HEAD')
  t.ok(item.options, 'OPTIONS')
  const post = doc.paths['/v1/books']!.post!
  t.same(
    Object.keys((post.requestBody!.content['application/json']!.schema.properties ?? {}) as Json),
    ['title'],
    'the Zod body',
  )
  t.ok(post.responses['201']!.content, 'the Zod 201')
  t.ok(doc.paths['/v1/health']!.get!.responses.default, 'a route without a schema')
  t.same(
    doc.tags?.map((tag) => tag.name),
    ['v1'],
  )
})

test('without the app transform, a Zod route is left to it; one without a schema is not', async (t) => {
  const doc = await zodApp(undefined)
  const get = doc.paths['/v1/books/{id}']!.get!
  t.ok(get.responses['200']!.content!['application/json'], 'the app transform made the document')
  t.notOk(get.operationId, 'restwell added nothing to it')
  t.notOk(get.responses.default)
  t.ok(doc.paths['/v1/health']!.get!.responses.default, 'nothing to convert: described')
})

test('a plain transform of the app: renamed URLs and hidden routes', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(fastifySwagger, { openapi: { info: { title: 't', version: '1' } } })
  const transform = ({ schema, url }: { schema?: unknown; url: string }) => ({
    schema: { ...(schema as Json), hide: url.startsWith('/internal') },
    url: url.replace('/latest/', '/v2/'),
  })
  await installOpenapi(app, {
    ...PLAN,
    auth: false,
    conventions: (_instance, route) => [SAID[0]!, ...conditionalSays(route)],
    transform,
  })
  app.get('/latest/books', async () => [])
  app.get('/internal/stats', async () => ({}))
  await app.ready()
  const doc = app.swagger() as unknown as Doc
  t.same(Object.keys(doc.paths), ['/v2/books'])
  const item = doc.paths['/v2/books']!
  t.same(Object.keys(item), ['get', 'head', 'options'])
  t.same(item.get!.tags, ['v2'], 'tagged by its URL in the document')
})

test('through the umbrella: `openapi.transform` hands restwell the app transform', async (t) => {
  const app = await zodSwagger()
  await app.register(restwell, { openapi: { transform: jsonSchemaTransform } })
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/v1/books/:id',
      { config: { auth: false }, schema: { response: { 200: Book } } },
      async () => ({ id: 1, title: 'x' }),
    )
  await app.ready()
  const doc = app.swagger() as unknown as Doc
  const get = doc.paths['/v1/books/{id}']!.get!
  const json = get.responses['200']!.content!['application/json']!.schema
  t.same(Object.keys(json.properties as Json), ['id', 'title'], 'the Zod response, converted')
  t.ok(get.responses['406'], "restwell's additions around it")
  t.equal(get.operationId, 'getV1BooksById')
  await t.rejects(
    async () => {
      const bad = Fastify()
      apps.push(bad)
      await bad.register(restwell, { openapi: { transfrom: jsonSchemaTransform } } as never)
    },
    /openapi/,
    'an unknown key of openapi is named',
  )
})

test('a plan without conventions: the statuses of Fastify and the error handler only', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(fastifySwagger, { openapi: { info: { title: 'bare', version: '1.0.0' } } })
  const { conventions: _said, ...bare } = PLAN
  await installOpenapi(app, bare)
  app.get('/v1/things', async () => [])
  await app.ready()
  const doc = app.swagger() as unknown as Doc
  const statuses = Object.keys(doc.paths['/v1/things']!.get!.responses)
  t.ok(statuses.includes('404'), "Fastify's 404")
  t.notOk(statuses.includes('405'), 'no convention says 405')
  t.notOk(statuses.includes('304'), 'no convention says 304')
  t.notOk(doc.paths['/v1/things']!.get!.security, 'nor what protects the route')
})
