/**
 * The bookshelf's OpenAPI 3.2 document, proven by validators nobody here wrote: it validates
 * with `@seriousme/openapi-schema-validator` (swagger-parser knows 3.0 and 3.1 only), Spectral's
 * `spectral:oas` ruleset finds no error (and no warning about scopes, operationIds or tags), and
 * the README tour plus a request for every convention, replayed through Prism's validating proxy
 * (`prism proxy --errors`), meets no violation; invalid requests are refused by Prism and by the
 * server. Prism has no `query` operation: the QUERY requests are checked against the document
 * with Ajv. Swagger UI, in the real Chromium, shows the negotiated media types and the
 * precondition headers.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fromXml } from '@restwell/negotiation'
import { Validator } from '@seriousme/openapi-schema-validator'
import spectralCore from '@stoplight/spectral-core'
import spectralRulesets from '@stoplight/spectral-rulesets'
import { Ajv } from 'ajv'
import ajvFormats from 'ajv-formats'
import { chromium, type Page } from 'playwright-core'
import { type Test, test } from 'tap'
import { start, tempDir } from '../../examples/bookshelf/test/helpers.js'
import { PATIENCE_MS } from '../helpers/patience.js'

const READ = 'Bearer dev-read-token'
const WRITE = 'Bearer dev-write-token'
const ROOT = new URL('../..', import.meta.url).pathname
const PRISM = join(ROOT, 'node_modules/.bin/prism')

type Json = Record<string, unknown>
interface Violation {
  location: string[]
  severity: string | number
  message: string
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Starts `prism proxy --errors` in front of `upstream`; resolves once it listens. */
async function prism(t: Test, document: string, upstream: string): Promise<string> {
  const port = await freePort()
  const child: ChildProcess = spawn(
    PRISM,
    ['proxy', '--errors', '--host', '127.0.0.1', '-p', String(port), document, upstream],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  // Also when tap ends this process on a timeout, before teardowns run.
  const stop = (): void => {
    child.kill()
  }
  process.once('exit', stop)
  t.teardown(stop)
  let log = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${log}`)), PATIENCE_MS)
    const read = (chunk: Buffer): void => {
      log += chunk.toString()
      if (log.includes('Prism is listening')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', read)
    child.stderr?.on('data', read)
    child.on('exit', (code) => reject(new Error(`prism exited (${code}):\n${log}`)))
  })
  return `http://127.0.0.1:${port}`
}

/** The document's path template a concrete path falls under. */
function templateOf(document: Json, path: string): string | undefined {
  const pathname = path.split('?')[0]!
  return Object.keys(document.paths as Json).find((template) =>
    new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname),
  )
}

function operationOf(document: Json, step: Step): Json | undefined {
  const template = templateOf(document, step.path)
  return ((document.paths as Json)[template ?? ''] as Json | undefined)?.[
    (step.method ?? 'GET').toLowerCase()
  ] as Json | undefined
}

const MERGE_PATCH = 'application/merge-patch+json'

/**
 * What Prism found: the `sl-violations` header of a response it let through, or the
 * `validation` list of the error it answered with itself (a refused request: `--errors`).
 */
async function violationsOf(response: Response): Promise<Violation[]> {
  const header = response.headers.get('sl-violations')
  if (header !== null) return JSON.parse(header) as Violation[]
  if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json'))
    return []
  const body = (await response.clone().json()) as { type?: string; validation?: Violation[] }
  if (!String(body.type).startsWith('https://stoplight.io/prism/errors')) return []
  return body.validation ?? [{ location: ['prism'], severity: 'Error', message: String(body.type) }]
}

interface Step {
  name: string
  method?: string
  path: string
  headers?: Record<string, string>
  body?: unknown
  type?: string
  status: number
}

const json = (body: unknown): string => JSON.stringify(body)

/** The README's tour, in its order (book 8 is created here), then one request per convention. */
const TOUR: Step[] = [
  {
    name: 'a filtered, sorted page',
    path: '/v1/books?status=available&sort=-publishedAt&limit=2',
    status: 200,
  },
  { name: 'one book', path: '/v1/books/1', status: 200 },
  {
    name: 'OPTIONS on any id: about the path',
    method: 'OPTIONS',
    path: '/v1/books/abc',
    status: 200,
  },
  { name: '304', path: '/v1/books/1', headers: { 'if-none-match': '"1"' }, status: 304 },
  {
    name: 'a language',
    path: '/v1/books/1',
    headers: { 'accept-language': 'de-CH, fr;q=0.5' },
    status: 200,
  },
  { name: 'XML', path: '/v1/books/1', headers: { accept: 'application/xml' }, status: 200 },
  { name: '?format=xml', path: '/v1/books/1?format=xml', status: 200 },
  {
    name: 'a HAL page',
    path: '/v1/books?authorId=2',
    headers: { accept: 'application/hal+json' },
    status: 200,
  },
  {
    name: 'JSON:API',
    path: '/v1/books/4',
    headers: { accept: 'application/vnd.api+json' },
    status: 200,
  },
  {
    name: 'Siren',
    path: '/v1/books/4',
    headers: { accept: 'application/vnd.siren+json' },
    status: 200,
  },
  { name: '406', path: '/v1/books/1', headers: { accept: 'text/csv' }, status: 406 },
  { name: '300 choices', path: '/v1/books?format=choices', status: 300 },
  { name: 'compressed', path: '/v1/books', headers: { 'accept-encoding': 'gzip' }, status: 200 },
  {
    name: '403: the read token cannot write',
    method: 'POST',
    path: '/v1/books',
    headers: { authorization: READ },
    body: { title: 'Dune', isbn: '978-0441013593', authorId: 1 },
    status: 403,
  },
  {
    name: '201 + Location',
    method: 'POST',
    path: '/v1/books',
    body: { title: 'Dune', isbn: '978-0441013593', authorId: 1 },
    status: 201,
  },
  {
    name: '409: a taken ISBN',
    method: 'POST',
    path: '/v1/books',
    body: { title: 'Dune', isbn: '978-0441013593', authorId: 1 },
    status: 409,
  },
  {
    name: '428 without If-Match',
    method: 'PUT',
    path: '/v1/books/8',
    body: {
      title: 'Dune',
      isbn: '978-0441013593',
      status: 'available',
      authorId: 1,
      publishedAt: '1965-08-01',
    },
    status: 428,
  },
  {
    name: 'PUT with If-Match',
    method: 'PUT',
    path: '/v1/books/8',
    headers: { 'if-match': '"1"' },
    body: {
      title: 'Dune',
      isbn: '978-0441013593',
      status: 'available',
      authorId: 1,
      publishedAt: '1965-08-01',
    },
    status: 200,
  },
  {
    name: 'a merge patch',
    method: 'PATCH',
    path: '/v1/books/8',
    headers: { 'if-match': '"2"' },
    type: 'application/merge-patch+json',
    body: { status: 'checked-out' },
    status: 200,
  },
  {
    name: '412: stale If-Match',
    method: 'PATCH',
    path: '/v1/books/8',
    headers: { 'if-match': '"2"' },
    type: 'application/merge-patch+json',
    body: { status: 'archived' },
    status: 412,
  },
  {
    name: 'a JSON Patch',
    method: 'PATCH',
    path: '/v1/books/8',
    headers: { 'if-match': '"3"' },
    type: 'application/json-patch+json',
    body: [
      { op: 'test', path: '/status', value: 'checked-out' },
      { op: 'replace', path: '/title', value: 'Dune (1965)' },
    ],
    status: 200,
  },
  {
    name: '409: a JSON Patch test that fails',
    method: 'PATCH',
    path: '/v1/books/8',
    headers: { 'if-match': '"4"' },
    type: 'application/json-patch+json',
    body: [{ op: 'test', path: '/status', value: 'available' }],
    status: 409,
  },
  {
    name: '422: a patch that breaks the schema',
    method: 'PATCH',
    path: '/v1/books/8',
    headers: { 'if-match': '"4"' },
    type: 'application/json-patch+json',
    body: [{ op: 'replace', path: '/status', value: 'lost' }],
    status: 422,
  },
  {
    name: 'soft delete',
    method: 'DELETE',
    path: '/v1/books/8',
    headers: { 'if-match': '"4"' },
    status: 200,
  },
  { name: 'deleted=only', path: '/v1/books?deleted=only', status: 200 },
  {
    name: 'restore',
    method: 'PATCH',
    path: '/v1/books/8',
    headers: { 'if-match': '"5"' },
    type: 'application/merge-patch+json',
    body: { deleted: false },
    status: 200,
  },
  { name: 'OPTIONS', method: 'OPTIONS', path: '/v1/books/1', status: 200 },
  { name: '206', path: '/v1/books/1/cover', headers: { range: 'bytes=0-99' }, status: 206 },
  { name: '416', path: '/v1/books/1/cover', headers: { range: 'bytes=20000-' }, status: 416 },
  { name: 'the v2 representation', path: '/v2/books/1', status: 200 },
  { name: 'a v2 page', path: '/v2/books?limit=2', status: 200 },
  {
    name: '202: an export job',
    method: 'POST',
    path: '/v1/exports',
    body: { status: 'available' },
    status: 202,
  },
  {
    name: '409: an author with books',
    method: 'DELETE',
    path: '/v1/authors/1',
    headers: { 'if-match': '"1"' },
    status: 409,
  },
  { name: 'authors, sorted', path: '/v1/authors?sort=name', status: 200 },
  { name: "an author's books in Siren", path: '/v1/authors/1/books?format=siren', status: 200 },
  { name: 'an author in HAL', path: '/v1/authors/1?format=hal', status: 200 },
  { name: 'a JSON:API page', path: '/v1/authors?format=jsonapi', status: 200 },
  {
    name: 'an error in JSON:API',
    path: '/v1/books/999',
    headers: { accept: 'application/vnd.api+json' },
    status: 404,
  },
  {
    name: 'an error in XML',
    path: '/v1/books/999',
    headers: { accept: 'application/xml' },
    status: 404,
  },
]

/** QUERY requests: each answer's status and the headers named in `documents` are documented. */
const QUERIES: (Step & { documents?: string[] })[] = [
  {
    name: 'QUERY: a search',
    method: 'QUERY',
    path: '/v1/books?limit=2',
    body: {
      where: { year: { gte: 1970 } },
      orderBy: [{ field: 'publishedAt', direction: 'desc' }],
    },
    status: 200,
    documents: ['etag', 'link', 'x-total-count'],
  },
  {
    name: 'QUERY: Location, the GET that lists the same books',
    method: 'QUERY',
    path: '/v1/books',
    body: { where: { status: 'available' } },
    status: 200,
    documents: ['etag', 'location'],
  },
  {
    name: 'QUERY: 304',
    method: 'QUERY',
    path: '/v1/books',
    headers: { 'if-none-match': '*' },
    body: { where: { status: 'available' } },
    status: 304,
    documents: ['etag'],
  },
  {
    name: 'QUERY: 415',
    method: 'QUERY',
    path: '/v1/books',
    body: 'status,available',
    type: 'text/csv',
    status: 415,
    documents: ['accept-query'],
  },
  {
    name: 'QUERY: 422, an unknown operator',
    method: 'QUERY',
    path: '/v1/books',
    body: { where: { year: { after: 1970 } } },
    status: 422,
  },
]

/** Requests the document forbids: Prism refuses them, and so does the server. */
const INVALID: Step[] = [
  { name: 'a path the document does not list: 404', path: '/v1/nothings', status: 404 },
  {
    name: 'a method the path does not support: 405',
    method: 'POST',
    path: '/v1/books/1',
    headers: { authorization: READ },
    body: {},
    status: 405,
  },
  { name: 'a path id that is not a number', path: '/v1/books/abc', status: 400 },
  { name: 'a limit above the maximum', path: '/v1/books?limit=1000', status: 400 },
  { name: 'a wrong sort', path: '/v1/books?sort=isbn', status: 400 },
  { name: 'a page above the maximum', path: '/v1/books?page=90071992547410', status: 400 },
  {
    name: 'OPTIONS without a token',
    method: 'OPTIONS',
    path: '/v1/books/1',
    headers: { authorization: '' },
    status: 401,
  },
  {
    name: 'a batch GET with a body',
    method: 'POST',
    path: '/batch',
    body: { requests: [{ id: 'a', method: 'GET', url: '/v1/books', body: {} }] },
    status: 400,
  },
  {
    name: 'a batch that nests one',
    method: 'POST',
    path: '/batch',
    body: { requests: [{ id: 'a', method: 'POST', url: '/batch', body: { requests: [] } }] },
    status: 400,
  },
  {
    name: 'a batch operation that overrides its method',
    method: 'POST',
    path: '/batch',
    body: { requests: [{ id: 'a', method: 'POST', url: '/v1/books?_method=DELETE' }] },
    status: 400,
  },
  { name: 'no token', path: '/v1/books', headers: { authorization: '' }, status: 401 },
  {
    name: 'a book without a title',
    method: 'POST',
    path: '/v1/books',
    body: { isbn: '978-0441013593', authorId: 1 },
    status: 400,
  },
  {
    name: 'a patch in plain JSON',
    method: 'PATCH',
    path: '/v1/books/1',
    headers: { 'if-match': '"1"' },
    body: { status: 'available' },
    status: 415,
  },
]

/** The representation a step asks for, when Prism cannot check its body (see below). */
function uncheckedForm(step: Step): string | undefined {
  const format = /[?&]format=(xml|hal|jsonapi|siren)/.exec(step.path)?.[1]
  if (format !== undefined) return format
  const accept = step.headers?.accept ?? ''
  return /xml|hal\+json|vnd\.api\+json|siren\+json/.test(accept) ? accept : undefined
}

function send(base: string, step: Step): Promise<Response> {
  const headers: Record<string, string> = { authorization: WRITE, ...step.headers }
  if (headers.authorization === '') delete headers.authorization
  let body: string | Uint8Array | undefined
  if (step.body !== undefined) {
    body =
      step.body instanceof Uint8Array || typeof step.body === 'string' ? step.body : json(step.body)
    headers['content-type'] = step.type ?? 'application/json'
  }
  return fetch(`${base}${step.path}`, {
    method: step.method ?? 'GET',
    headers,
    body,
    redirect: 'manual',
  })
}

test('the bookshelf document: valid, Spectral-clean, and true to every answer', async (t) => {
  const began = Date.now()
  const api = await start(t, { dataDir: tempDir(t) }, { rateLimitMax: 120 })
  t.comment(`bookshelf started in ${Date.now() - began} ms`)
  const document = (await (await fetch(`${api.base}/openapi.json`)).json()) as Json
  const dir = tempDir(t, 'openapi-')
  const file = join(dir, 'openapi.json')
  writeFileSync(file, JSON.stringify(document))

  const validator = new Validator()
  t.same(
    await validator.validate(structuredClone(document)),
    { valid: true },
    'openapi-schema-validator: valid',
  )
  t.equal(validator.version, '3.2', 'as OpenAPI 3.2')

  const spectral = new spectralCore.Spectral()
  spectral.setRuleset({ extends: [[spectralRulesets.oas as never, 'recommended']] })
  const results = await spectral.run(JSON.stringify(document))
  const errors = results.filter((r) => r.severity === 0)
  t.same(
    errors.map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`),
    [],
    'Spectral: no error',
  )
  const named = results.filter((r) =>
    /scope|operationId|operation-tag|security/.test(`${r.code} ${r.message}`),
  )
  t.same(
    named.map((r) => `${r.code} ${r.path.join('.')}`),
    [],
    'Spectral: nothing about scopes, operationIds or tags',
  )

  // Every schema of the document, for the checks Prism cannot make (below).
  const resolved = validator.resolveRefs() as Json
  const ajv = new Ajv({ strict: false, allErrors: true })
  // A CommonJS module: its plugin is `default` whichever way it is loaded.
  ajvFormats.default(ajv)
  function schemaFor(step: Step, status: number, mediaType: string): Json | undefined {
    const operation = operationOf(resolved, step)
    const responses = (operation?.responses ?? {}) as Json
    const response = (responses[String(status)] ?? responses.default) as Json | undefined
    const content = (response?.content ?? {}) as Record<string, { schema: Json }>
    return content[mediaType]?.schema
  }

  function requestSchemaFor(step: Step, mediaType: string): Json | undefined {
    const operation = operationOf(resolved, step)
    const content = ((operation?.requestBody as Json | undefined)?.content ?? {}) as Record<
      string,
      { schema: Json }
    >
    return content[mediaType]?.schema
  }
  /** The body checked with Ajv against the document's schema for its status and media type. */
  function checkBody(t: Test, step: Step, status: number, header: string | null, text: string) {
    const type = (header ?? '').split(';')[0]!
    const schema = schemaFor(step, status, type)
    t.ok(schema, `${step.name}: ${type} is documented for ${status}`)
    if (schema === undefined) return
    // XML: read back with the server's own reader, as a client would; its schema is the
    // JSON one with an `xml` name, so the values are checked, not the element layout.
    const body = /xml/.test(type) ? fromXml(text) : JSON.parse(text)
    if (/xml/.test(type)) {
      t.ok(body !== undefined, `${step.name}: the XML body reads back`)
      return
    }
    const validate = ajv.compile(schema)
    t.ok(validate(body), `${step.name}: the ${type} body matches its schema`, {
      errors: validate.errors,
    })
  }

  // Prism and Chromium start together, and Swagger UI is checked while the tour is replayed.
  const [base, ui] = await Promise.all([prism(t, file, api.base), swaggerUi(t, api.base)])
  t.comment(`Prism and Chromium started at ${Date.now() - began} ms`)

  // The cover bytes, for the upload below.
  const cover = new Uint8Array(
    await (
      await send(api.base, { name: '', path: '/v1/books/1/cover', status: 200 })
    ).arrayBuffer(),
  )
  for (const step of TOUR) {
    const response = await send(base, step)
    const violations = await violationsOf(response)
    const form = uncheckedForm(step)
    if (step.type === MERGE_PATCH) {
      // Prism reads any `+json` request body as the first `+json` type of the operation, here
      // `application/json-patch+json` (the same suffix-only wildcardMediaTypeMatch), and refuses
      // a merge patch as a JSON Patch that is not an array. So: only that refusal from Prism;
      // the merge patch checked against its own schema with Ajv, sent to the server directly,
      // and its answer checked against the document the same way.
      t.ok(
        violations.length > 0 && violations.every((v) => v.location[0] === 'body'),
        `${step.name}: Prism only misreads the merge patch as a JSON Patch`,
        { violations },
      )
      const mergeSchema = requestSchemaFor(step, MERGE_PATCH)
      t.ok(mergeSchema, `${step.name}: the merge patch has its own schema`)
      if (mergeSchema !== undefined) {
        const validate = ajv.compile(mergeSchema)
        t.ok(validate(step.body), `${step.name}: the merge patch matches it`, {
          errors: validate.errors,
        })
      }
      const direct = await send(api.base, step)
      t.equal(direct.status, step.status, `${step.name}: ${step.status}`)
      checkBody(t, step, direct.status, direct.headers.get('content-type'), await direct.text())
      continue
    }
    if (form === undefined) {
      t.same(violations, [], `${step.name}: no violation`)
      t.equal(response.status, step.status, `${step.name}: ${step.status}`)
      continue
    }
    // Prism cannot check these bodies: it reads any `+json` type as `application/json` (its
    // wildcardMediaTypeMatch compares the suffix only, so the first JSON schema of the list is
    // used for HAL, JSON:API and Siren), and it parses no XML ("must be object"). Everything
    // else it checks; the body is checked here against the document's schema for its own
    // media type, with Ajv (XML read back with the server's own reader, as a client would).
    const others = violations.filter(
      (v) => v.location[0] !== 'response' || v.location[1] !== 'body',
    )
    t.same(others, [], `${step.name}: no violation but Prism's misread body`)
    const direct = await send(api.base, step)
    t.equal(direct.status, step.status, `${step.name}: ${step.status}`)
    checkBody(t, step, direct.status, direct.headers.get('content-type'), await direct.text())
  }

  // A binary upload through Prism: its proxy forwards the body as text, so the image arrives
  // corrupted (the server answers 422 INVALID_IMAGE, rightly). Checked directly instead: the
  // media type is one the document lists for the request body, the answer is documented.
  const upload: Step = {
    name: 'a binary upload',
    method: 'PUT',
    path: '/v1/books/3/cover',
    headers: { 'if-none-match': '*' },
    type: 'image/png',
    body: cover,
    status: 201,
  }
  t.same(
    requestSchemaFor(upload, 'image/png'),
    { type: 'string', format: 'binary' },
    'PUT cover: image/png is a documented binary body',
  )
  const uploaded = await send(api.base, upload)
  t.equal(uploaded.status, 201, 'PUT cover: 201')
  const created = (operationOf(document, upload)?.responses as Json | undefined)?.['201'] as Json
  t.ok(created, 'PUT cover: 201 documented')
  t.ok((created?.headers as Json | undefined)?.location, 'PUT cover: 201 documents Location')
  t.equal(uploaded.headers.get('location'), '/v1/books/3/cover')
  // Not negotiated (`config.negotiation: false`): no language is chosen, none documented.
  t.equal(uploaded.headers.get('content-language'), null, 'PUT cover: no Content-Language')
  t.notOk(
    (created?.headers as Json | undefined)?.['content-language'],
    'PUT cover: 201 documents no Content-Language',
  )

  // HEAD through Prism: it parses the empty body of a HEAD as JSON and fails ("invalid json
  // response body"), so HEAD is checked directly: status and headers as documented.
  for (const path of ['/v1/books/1', '/v1/books', '/v1/books/1/cover']) {
    const response = await send(api.base, { name: 'HEAD', method: 'HEAD', path, status: 200 })
    t.equal(response.status, 200, `HEAD ${path}: 200`)
    const template = templateOf(document, path)!
    const head = ((document.paths as Json)[template] as Json).head as Json
    const ok = (head.responses as Json)['200'] as Json
    t.notOk(ok.content, `HEAD ${path}: no body documented`)
    const names = ['etag', 'x-ratelimit-limit', ...(path === '/v1/books' ? [] : ['last-modified'])]
    for (const name of names) {
      t.ok(response.headers.get(name), `HEAD ${path}: ${name} sent`)
      t.ok((ok.headers as Json)[name], `HEAD ${path}: ${name} documented`)
    }
  }

  for (const step of INVALID) {
    const refused = await send(base, step)
    const violations = await violationsOf(refused)
    const body = (await refused.json()) as Json
    t.ok(
      violations.some((v) => v.location[0] === 'request') ||
        String(body.type).includes('stoplight.io/prism/errors'),
      `${step.name}: Prism refuses it (${refused.status})`,
    )
    t.ok(refused.status >= 400 && refused.status < 500, `${step.name}: Prism answers 4xx`)
    const direct = await send(api.base, step)
    t.equal(direct.status, step.status, `${step.name}: the server refuses it too`)
  }

  // A job: 202, its status resource answers 303 once it is done, and so does its result.
  const accepted = await send(api.base, {
    name: '',
    method: 'POST',
    path: '/v1/exports',
    body: { status: 'available' },
    status: 202,
  })
  const jobPath = accepted.headers.get('location') ?? ''
  for (let i = 0; i < 100; i++) {
    const polled = await send(api.base, { name: '', path: jobPath, status: 303 })
    await polled.arrayBuffer()
    if (polled.status === 303) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  // Prism's proxy follows a 303 and checks the result against the job's operation: so the
  // 303s are checked directly, against the document with Ajv.
  for (const path of [jobPath, `${jobPath}/result`]) {
    const step: Step = { name: `GET ${path}`, path, status: 303 }
    const done = await send(api.base, step)
    t.equal(done.status, 303, `GET ${path}: 303`)
    t.match(done.headers.get('location'), /^\/v1\/exports\/\d+$/, `GET ${path}: Location`)
    const documented = (operationOf(resolved, step)?.responses as Json | undefined)?.['303']
    t.ok((documented as Json | undefined)?.headers, `GET ${path}: 303 documented, with Location`)
    const text = await done.text()
    if (text.length > 0) checkBody(t, step, 303, done.headers.get('content-type'), text)
  }

  // QUERY: Prism knows no `query` operation (it answers 405), so each request goes to the server
  // directly; its body matches the documented request schema, and its answer the documented
  // status, headers and body.
  for (const step of QUERIES) {
    const bodySchema = requestSchemaFor(step, 'application/json')
    t.ok(bodySchema, `${step.name}: the query body is documented`)
    if (bodySchema !== undefined && step.type === undefined) {
      const valid = ajv.compile(bodySchema)(step.body)
      t.equal(valid, step.status !== 422, `${step.name}: the document's schema says so too`)
    }
    const direct = await send(api.base, step)
    t.equal(direct.status, step.status, `${step.name}: ${step.status}`)
    const documented = ((operationOf(resolved, step)?.responses as Json | undefined)?.[
      String(step.status)
    ] ?? {}) as Json
    t.ok(documented.description, `${step.name}: ${step.status} documented`)
    for (const name of step.documents ?? []) {
      t.ok(direct.headers.get(name), `${step.name}: ${name} sent`)
      t.ok((documented.headers as Json | undefined)?.[name], `${step.name}: ${name} documented`)
    }
    const text = await direct.text()
    if (text.length > 0) checkBody(t, step, direct.status, direct.headers.get('content-type'), text)
  }
  const options = (
    ((document.paths as Json)['/v1/books'] as Json).options as {
      responses: Record<string, { headers: Json }>
    }
  ).responses['200']!
  t.ok(options.headers['accept-query'], 'OPTIONS /v1/books documents Accept-Query')

  // 429 once the window is used up (filled directly, fast), through Prism: documented, with
  // Retry-After and the X-RateLimit-* headers.
  for (let i = 0; i < 200; i++) {
    const response = await send(api.base, { name: '', path: '/v1/authors/1', status: 200 })
    await response.arrayBuffer()
    if (response.status === 429) break
  }
  const limited = await send(base, { name: '', path: '/v1/authors/1', status: 429 })
  t.equal(limited.status, 429, '429 after the limit')
  t.same(await violationsOf(limited), [], '429: no violation')
  t.ok(limited.headers.get('retry-after'), '429: Retry-After')

  await ui.done
  t.comment(`done at ${Date.now() - began} ms`)
})

/** Swagger UI in Chromium: the negotiated media types and the precondition headers show. */
async function swaggerUi(t: Test, base: string): Promise<{ done: Promise<void> }> {
  const browser = await chromium.launchPersistentContext(tempDir(t, 'chromium-'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  })
  t.teardown(() => browser.close())
  const page = browser.pages()[0] ?? (await browser.newPage())
  return { done: checkSwaggerUi(t, base, page) }
}

async function checkSwaggerUi(t: Test, base: string, page: Page): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 2400 })
  await page.goto(`${base}/docs`)
  await page.waitForSelector('#operations-books-patchV1BooksById', {
    state: 'attached',
    timeout: PATIENCE_MS,
  })
  const get = page.locator('#operations-books-getV1BooksById')
  await get.locator('.opblock-summary').first().click()
  const media = await get.locator('.responses-wrapper select.content-type option').allTextContents()
  for (const type of [
    'application/json',
    'application/xml',
    'application/hal+json',
    'application/vnd.api+json',
    'application/vnd.siren+json',
  ]) {
    t.ok(media.includes(type), `Swagger UI lists ${type} for GET /v1/books/{id}`)
  }
  const patch = page.locator('#operations-books-patchV1BooksById')
  await patch.locator('.opblock-summary').first().click()
  const text = (await patch.textContent()) ?? ''
  t.match(text, /if-match/, 'Swagger UI shows If-Match on PATCH')
  t.match(text, /412/, 'and 412')
  t.match(text, /428/, 'and 428')
  const shots = join(ROOT, 'test/openapi/screenshots')
  mkdirSync(shots, { recursive: true })
  await get.screenshot({ path: join(shots, 'swagger-ui-get.png') })
  await patch.screenshot({ path: join(shots, 'swagger-ui-patch.png') })
}
