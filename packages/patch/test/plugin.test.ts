import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { bodyBytesOf } from '@restwell/core'
import restwellErrors, { ErrorCode, httpErrors, OptionsError } from '@restwell/errors'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { type PatchOptions, restwellPatch } from '../src/index.js'
import { answerUnroutedMethods } from './helpers.js'

const JSON_PATCH = 'application/json-patch+json'
const MERGE_PATCH = 'application/merge-patch+json'
const BOTH = `${JSON_PATCH}, ${MERGE_PATCH}`

const Book = Type.Object(
  {
    id: Type.String({ readOnly: true }),
    title: Type.String({ minLength: 1 }),
    year: Type.Optional(Type.Integer()),
    tags: Type.Optional(Type.Array(Type.String())),
    createdAt: Type.String(),
  },
  { additionalProperties: false },
)

interface BookDoc {
  id: string
  title: string
  year?: number
  tags?: string[]
  createdAt: string
}

function seed(): Map<string, BookDoc> {
  return new Map([
    ['1', { id: '1', title: 'Dune', year: 1965, tags: ['sf'], createdAt: '2020-01-01T00:00:00Z' }],
  ])
}

async function build(
  options: PatchOptions = {},
  setup?: (app: FastifyInstance, books: Map<string, BookDoc>) => void,
): Promise<{ app: FastifyInstance; books: Map<string, BookDoc> }> {
  const app = Fastify()
  const books = seed()
  await app.register(restwellPatch, options)
  app.patch<{ Params: { id: string } }>(
    '/books/:id',
    { schema: { response: { 200: Book } } },
    async (request) => {
      const current = books.get(request.params.id)
      if (current === undefined) throw httpErrors.notFound('No such book')
      const next = request.applyPatch(current)
      books.set(request.params.id, next)
      return next
    },
  )
  setup?.(app, books)
  await app.ready()
  return { app, books }
}

function patch(app: FastifyInstance, body: unknown, type = JSON_PATCH, url = '/books/1') {
  return app.inject({
    method: 'PATCH',
    url,
    headers: { 'content-type': type },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

test('JSON Patch: 200 with the new representation, stored', async (t) => {
  const { app, books } = await build()
  const res = await patch(app, [
    { op: 'test', path: '/title', value: 'Dune' },
    { op: 'replace', path: '/title', value: 'Dune Messiah' },
    { op: 'add', path: '/tags/-', value: 'classic' },
    { op: 'remove', path: '/year' },
  ])
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    id: '1',
    title: 'Dune Messiah',
    tags: ['sf', 'classic'],
    createdAt: '2020-01-01T00:00:00Z',
  })
  t.equal(books.get('1')?.title, 'Dune Messiah')
})

test('JSON Merge Patch: 200 with the new representation', async (t) => {
  const { app } = await build()
  const res = await patch(
    app,
    { title: 'Emma', year: null, tags: ['novel'] },
    `${MERGE_PATCH}; charset=utf-8`,
  )
  t.equal(res.statusCode, 200)
  t.same(res.json(), { id: '1', title: 'Emma', tags: ['novel'], createdAt: '2020-01-01T00:00:00Z' })
})

test('request.patch holds the parsed patch and its format', async (t) => {
  const { app } = await build({}, (app) => {
    app.patch('/echo', { config: { patch: { schema: false } } }, async (request) => request.patch)
    app.get('/none', async (request) => ({ patch: request.patch }))
  })
  const ops = [{ op: 'add', path: '/a', value: 1, extra: true }]
  t.same((await patch(app, ops, JSON_PATCH, '/echo')).json(), {
    format: 'json-patch',
    operations: ops,
  })
  t.same((await patch(app, { a: 1 }, MERGE_PATCH, '/echo')).json(), {
    format: 'merge-patch',
    document: { a: 1 },
  })
  t.same((await app.inject('/none')).json(), { patch: null })
})

test('415 with Accept-Patch for any other Content-Type, before the body is read', async (t) => {
  const { app, books } = await build()
  for (const type of ['application/json', 'text/plain', 'application/json-patch']) {
    const res = await patch(app, [{ op: 'remove', path: '/year' }], type)
    t.equal(res.statusCode, 415, type)
    t.equal(res.headers['accept-patch'], BOTH)
    t.equal(res.json().code, ErrorCode.UNSUPPORTED_MEDIA_TYPE)
  }
  const none = await app.inject({ method: 'PATCH', url: '/books/1', payload: 'x' })
  t.equal(none.statusCode, 415)
  t.equal(none.headers['accept-patch'], BOTH)
  t.match(none.json().message, /needs a Content-Type/)
  const empty = await app.inject({ method: 'PATCH', url: '/books/1' })
  t.equal(empty.statusCode, 415)
  t.equal(books.get('1')?.year, 1965)
})

test('a route restricted to one format lists only it', async (t) => {
  const { app } = await build({}, (app) => {
    app.patch('/notes/:id', { config: { patch: { formats: ['merge-patch'] } } }, async (request) =>
      request.applyPatch({ text: 'a' }),
    )
  })
  const res = await patch(app, [], JSON_PATCH, '/notes/1')
  t.equal(res.statusCode, 415)
  t.equal(res.headers['accept-patch'], MERGE_PATCH)
  t.same((await patch(app, { text: 'b' }, MERGE_PATCH, '/notes/1')).json(), { text: 'b' })
})

test('the plugin-level formats option', async (t) => {
  const { app } = await build({ formats: ['json-patch'] })
  const res = await patch(app, { title: 'x' }, MERGE_PATCH)
  t.equal(res.statusCode, 415)
  t.equal(res.headers['accept-patch'], JSON_PATCH)
})

test('400 INVALID_PATCH for a malformed patch document, with the field', async (t) => {
  const { app, books } = await build()
  const cases: Array<[unknown, string]> = [
    [{ op: 'add' }, 'body'],
    [
      [
        { op: 'add', path: '/title', value: 'x' },
        { op: 'frobnicate', path: '/x' },
      ],
      'body/1/op',
    ],
    [[{ op: 'replace', path: 'title', value: 'x' }], 'body/0/path'],
    [[{ op: 'copy', path: '/x' }], 'body/0/from'],
  ]
  for (const [body] of cases) {
    const res = await patch(app, body)
    t.equal(res.statusCode, 400)
    t.equal(res.json().code, ErrorCode.INVALID_PATCH)
  }
  const app2 = Fastify()
  await app2.register(restwellErrors)
  await app2.register(restwellPatch)
  app2.patch('/x', async (request) => request.applyPatch({}))
  for (const [body, field] of cases) {
    const res = await patch(app2, body, JSON_PATCH, '/x')
    t.equal(res.statusCode, 400)
    t.same(res.json().error.details, [
      { field, message: res.json().error.message, code: ErrorCode.INVALID_PATCH },
    ])
  }
  t.equal(books.get('1')?.title, 'Dune')
})

test('400 for malformed or empty JSON and for prototype poisoning in the body', async (t) => {
  const { app } = await build()
  t.equal((await patch(app, '[{"op":', JSON_PATCH)).statusCode, 400)
  t.equal((await patch(app, '', MERGE_PATCH)).statusCode, 400)
  t.equal((await patch(app, '{"__proto__":{"polluted":1}}', MERGE_PATCH)).statusCode, 400)
  t.equal(
    (await patch(app, '[{"op":"add","path":"/a","value":{"__proto__":{"polluted":1}}}]'))
      .statusCode,
    400,
  )
  t.equal(({} as { polluted?: unknown }).polluted, undefined)
})

test('400 INVALID_UTF8 for a body whose bytes are not UTF-8, in both formats; nothing stored', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  const books = seed()
  await app.register(restwellPatch)
  app.patch('/books/:id', { schema: { response: { 200: Book } } }, async (request) => {
    const next = request.applyPatch(books.get('1'))
    books.set('1', next as BookDoc)
    return next
  })
  const send = (type: string, bytes: Buffer) =>
    app.inject({
      method: 'PATCH',
      url: '/books/1',
      headers: { 'content-type': type },
      payload: bytes,
    })
  const bodies: Array<[string, Buffer]> = [
    // Latin-1 "é", as a legacy client sends it
    [MERGE_PATCH, Buffer.from('{"title":"Les Mis\xe9rables"}', 'latin1')],
    [JSON_PATCH, Buffer.from('[{"op":"replace","path":"/title","value":"Caf\xe9"}]', 'latin1')],
    // an overlong "/" and an encoded UTF-16 surrogate: not UTF-8 either (RFC 3629 §3)
    [MERGE_PATCH, Buffer.from([...Buffer.from('{"title":"a'), 0xc0, 0xaf, ...Buffer.from('"}')])],
    [
      MERGE_PATCH,
      Buffer.from([...Buffer.from('{"title":"a'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]),
    ],
  ]
  for (const [type, bytes] of bodies) {
    const res = await send(type, bytes)
    t.equal(res.statusCode, 400, res.body)
    t.same(res.json().error, {
      ...res.json().error,
      code: ErrorCode.INVALID_UTF8,
      message: 'The request body is not valid UTF-8',
      details: [{ field: 'body', message: 'is not valid UTF-8', code: ErrorCode.INVALID_UTF8 }],
    })
  }
  t.equal(books.get('1')?.title, 'Dune', 'nothing stored')
  // The same text in UTF-8 (with or without a BOM) is taken as it is.
  const utf8 = await send(MERGE_PATCH, Buffer.from('{"title":"Les Misérables"}', 'utf8'))
  t.equal(utf8.statusCode, 200, utf8.body)
  t.equal(books.get('1')?.title, 'Les Misérables')
  const bom = await send(
    JSON_PATCH,
    Buffer.from('\ufeff[{"op":"replace","path":"/title","value":"Café"}]'),
  )
  t.equal(bom.statusCode, 200, bom.body)
  t.equal(books.get('1')?.title, 'Café')
})

test('409 for a failed test and for a missing target; nothing stored', async (t) => {
  const { app, books } = await build()
  const failed = await patch(app, [
    { op: 'replace', path: '/title', value: 'Other' },
    { op: 'test', path: '/year', value: 1966 },
  ])
  t.equal(failed.statusCode, 409)
  t.equal(failed.json().code, ErrorCode.PATCH_TEST_FAILED)
  const missing = await patch(app, [{ op: 'replace', path: '/subtitle', value: 'x' }])
  t.equal(missing.statusCode, 409)
  t.equal(missing.json().code, ErrorCode.PATCH_TARGET_MISSING)
  t.equal(books.get('1')?.title, 'Dune')
})

test('422 FORBIDDEN_PATH for __proto__, constructor, prototype', async (t) => {
  const { app } = await build()
  const res = await patch(app, [{ op: 'add', path: '/constructor/prototype/polluted', value: 1 }])
  t.equal(res.statusCode, 422)
  t.equal(res.json().code, ErrorCode.FORBIDDEN_PATH)
  const merge = await patch(app, { constructor: { prototype: { polluted: 1 } } }, MERGE_PATCH)
  t.equal(merge.statusCode, 400, "Fastify's constructor-poisoning check answers first")
  const app2 = Fastify({ onConstructorPoisoning: 'ignore' })
  await app2.register(restwellPatch)
  app2.patch('/x', async (request) => request.applyPatch({}))
  const merge2 = await patch(
    app2,
    { constructor: { prototype: { polluted: 1 } } },
    MERGE_PATCH,
    '/x',
  )
  t.equal(merge2.statusCode, 422)
  t.equal(merge2.json().code, ErrorCode.FORBIDDEN_PATH)
  t.equal(({} as { polluted?: unknown }).polluted, undefined)
})

test('422 READ_ONLY_FIELD for fields readOnly in the schema, naming the field', async (t) => {
  const { app, books } = await build()
  const res = await patch(app, [
    { op: 'test', path: '/id', value: '1' },
    { op: 'replace', path: '/title', value: 'X' },
    { op: 'replace', path: '/id', value: '2' },
  ])
  t.equal(res.statusCode, 422)
  t.equal(res.json().code, ErrorCode.READ_ONLY_FIELD)
  t.match(res.json().message, /"\/id" is read-only .*operation 2: replace "\/id"/)
  const merge = await patch(app, { id: '9' }, MERGE_PATCH)
  t.equal(merge.statusCode, 422)
  t.equal(merge.json().code, ErrorCode.READ_ONLY_FIELD)
  const same = await patch(app, { id: '1', title: 'Same id is fine' }, MERGE_PATCH)
  t.equal(same.statusCode, 200)
  t.equal(books.get('1')?.id, '1')
})

test('read-only fields: details point at the operation, the move source or the merge member', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellPatch, { readOnly: ['id'] })
  const doc = { id: 1, meta: { createdAt: 'then', note: 'n' }, other: { x: 1 } }
  app.patch('/r', { config: { patch: { readOnly: ['/meta/createdAt'] } } }, async (request) =>
    request.applyPatch(doc),
  )
  const detail = async (body: unknown, type = JSON_PATCH) => {
    const res = await patch(app, body, type, '/r')
    t.equal(res.statusCode, 422)
    return res.json().error.details[0]
  }
  t.match(await detail([{ op: 'remove', path: '/id' }]), {
    field: 'body/0/path',
    code: 'READ_ONLY_FIELD',
  })
  t.match(await detail([{ op: 'move', from: '/id', path: '/id2' }]), { field: 'body/0/from' })
  t.match(await detail([{ op: 'replace', path: '/meta', value: { note: 'n' } }]), {
    field: 'body/0/path',
  })
  t.match(await detail([{ op: 'add', path: '/meta/createdAt', value: 'now' }]), {
    field: 'body/0/path',
    message: /"\/meta\/createdAt"/,
  })
  t.match(await detail([{ op: 'replace', path: '', value: { id: 2 } }]), { field: 'body/0/path' })
  t.match(await detail({ meta: { createdAt: 'now' } }, MERGE_PATCH), {
    field: 'body/meta/createdAt',
  })
  t.match(await detail({ id: null }, MERGE_PATCH), { field: 'body/id' })
  t.equal(
    (await patch(app, [{ op: 'replace', path: '/meta/note', value: 'm' }], JSON_PATCH, '/r'))
      .statusCode,
    200,
  )
  t.equal(
    (await patch(app, [{ op: 'copy', from: '/id', path: '/other/id' }], JSON_PATCH, '/r'))
      .statusCode,
    200,
  )
})

test('a merge patch that is not an object replaces the document: the error says what is wrong with it', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellPatch, { readOnly: ['/meta/createdAt'] })
  const doc = { id: '1', title: 'Dune', createdAt: 'then', meta: { createdAt: 'then' } }
  app.patch('/books/:id', { schema: { response: { 200: Book } } }, async (request) =>
    request.applyPatch({ id: '1', title: 'Dune', createdAt: 'then' }),
  )
  app.patch('/plain/:id', async (request) => request.applyPatch(doc))
  await app.ready()
  for (const body of [[1, 2], '"text"', 7, null]) {
    const res = await patch(app, body, MERGE_PATCH)
    t.equal(res.statusCode, 422, JSON.stringify(body))
    t.equal(res.json().error.code, ErrorCode.PATCH_RESULT_INVALID, JSON.stringify(body))
    t.same(res.json().error.details, [
      { field: 'resource', message: 'must be object', code: 'TYPE' },
    ])
  }
  // No schema: the read-only field it removed, named where the patch touched it (the whole body).
  const plain = await patch(app, [1, 2], MERGE_PATCH, '/plain/1')
  t.equal(plain.statusCode, 422)
  t.match(plain.json().error, {
    code: ErrorCode.READ_ONLY_FIELD,
    message:
      /"\/meta\/createdAt" is read-only .*merge patch that is not an object replaces the whole document/,
    details: [{ field: 'body' }],
  })
  const member = await patch(app, { meta: null }, MERGE_PATCH, '/plain/1')
  t.match(member.json().error.details, [{ field: 'body/meta' }], 'the member that removed it')
})

test('a patch route’s own body schema: the patch keeps its JSON types (a 400, not converted)', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwellErrors)
  await app.register(restwellPatch)
  const books = seed()
  const Edit = Type.Partial(Type.Object({ title: Type.String(), year: Type.Integer() }))
  app.patch(
    '/books/:id',
    {
      schema: { body: Edit, response: { 200: Book } },
      config: { patch: { formats: ['merge-patch'] } },
    },
    async (request) => request.applyPatch(books.get('1')!),
  )
  app.patch(
    '/typed/:id',
    {
      schema: {
        body: { content: { [MERGE_PATCH]: { schema: Edit }, [JSON_PATCH]: { schema: {} } } },
      },
    },
    async (request) => {
      const next = request.applyPatch(books.get('1')!)
      books.set('1', next)
      return next
    },
  )
  await app.ready()
  for (const url of ['/books/1', '/typed/1']) {
    const res = await patch(app, { year: '1966' }, MERGE_PATCH, url)
    t.equal(res.statusCode, 400, url)
    t.same(res.json().error.details, [
      { field: 'body/year', message: 'must be integer', code: 'TYPE' },
    ])
  }
  t.equal(books.get('1')?.year, 1965, 'nothing was stored')
  const typed = await patch(app, { year: 1966 }, MERGE_PATCH, '/typed/1')
  t.equal(typed.statusCode, 200)
  t.equal(books.get('1')?.year, 1966)
  const ops = await patch(
    app,
    [{ op: 'replace', path: '/year', value: 1967 }],
    JSON_PATCH,
    '/typed/1',
  )
  t.equal(ops.statusCode, 200, 'JSON Patch with its own (empty) schema')
})

test('a patch route’s body schema the type check cannot compile fails ready(), naming the way out', async (t) => {
  const app = Fastify({ ajv: { customOptions: { $data: true } } })
  await app.register(restwellPatch)
  const body = {
    type: 'object',
    properties: {
      low: { type: 'integer' },
      high: { type: 'integer', minimum: { $data: '1/low' } },
    },
  }
  app.patch(
    '/ranges/:id',
    { schema: { body }, config: { patch: { formats: ['merge-patch'] } } },
    async () => ({}),
  )
  await t.rejects(async () => app.ready(), {
    option: 'schema.body',
    message: /PATCH \/ranges\/:id\).*cannot be compiled .*validatorCompiler of its own/,
  })
})

test('a read-only field that is absent may stay absent; adding it is refused', async (t) => {
  const app = Fastify()
  await app.register(restwellPatch, { readOnly: ['/stamp'] })
  app.patch('/r', async (request) => request.applyPatch({ a: 1 }))
  t.equal(
    (await patch(app, [{ op: 'add', path: '/b', value: 1 }], JSON_PATCH, '/r')).statusCode,
    200,
  )
  const res = await patch(app, [{ op: 'add', path: '/stamp', value: 1 }], JSON_PATCH, '/r')
  t.equal(res.statusCode, 422)
  t.same(res.json().code, 'READ_ONLY_FIELD')
})

test('422 PATCH_RESULT_INVALID when the result breaks the resource schema', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellPatch)
  const books = seed()
  app.patch('/books/:id', { schema: { response: { 200: Book } } }, async (request) =>
    request.applyPatch(books.get('1')),
  )
  const res = await patch(app, [
    { op: 'replace', path: '/title', value: '' },
    { op: 'add', path: '/isbn', value: 'x' },
    { op: 'replace', path: '/year', value: '1965' },
  ])
  t.equal(res.statusCode, 422)
  const error = res.json().error
  t.equal(error.code, ErrorCode.PATCH_RESULT_INVALID)
  t.same(error.details.map((d: { field: string }) => d.field).sort(), [
    'resource/isbn',
    'resource/title',
    'resource/year',
  ])
  const merge = await patch(app, { title: null }, MERGE_PATCH)
  t.equal(merge.statusCode, 422)
  t.same(
    merge.json().error.details.map((d: { field: string }) => d.field),
    ['resource/title'],
  )
  t.equal(books.get('1')?.title, 'Dune')
})

test('a Date in the stored document is checked as the date-time string it is sent as', async (t) => {
  // What a database driver returns, and a schema describing the response (a Date serializes to
  // its ISO string), as in the README: a patch must not fail on a Date it does not touch.
  const Dated = Type.Object(
    {
      id: Type.Integer({ readOnly: true }),
      title: Type.String({ minLength: 1 }),
      createdAt: Type.String({ format: 'date-time', readOnly: true }),
      publishedAt: Type.String({ format: 'date-time' }),
      meta: Type.Object({ updatedAt: Type.String({ format: 'date-time' }) }),
      history: Type.Array(Type.Object({ at: Type.String({ format: 'date-time' }) })),
    },
    { additionalProperties: false },
  )
  const created = new Date('2020-01-01T00:00:00.000Z')
  const updated = new Date('2021-06-01T12:00:00.000Z')
  const seen = new Date('2022-03-04T05:06:07.000Z')
  const row = () => ({
    id: 1,
    title: 'Dune',
    createdAt: created,
    publishedAt: new Date('1965-08-01T00:00:00.000Z'),
    meta: { updatedAt: updated },
    history: [{ at: seen }],
  })
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellPatch, { ajv: { formats: { 'date-time': /^\d{4}-\d\d-\d\dT/ } } })
  let stored: ReturnType<typeof row> | undefined
  app.patch('/books/:id', { schema: { response: { 200: Dated } } }, async (request) => {
    stored = request.applyPatch(row())
    return stored
  })
  const sent = {
    id: 1,
    title: 'Dune Messiah',
    createdAt: '2020-01-01T00:00:00.000Z',
    publishedAt: '1965-08-01T00:00:00.000Z',
    meta: { updatedAt: '2021-06-01T12:00:00.000Z' },
    history: [{ at: '2022-03-04T05:06:07.000Z' }],
  }

  // Dates untouched (top level, nested in an object, in an array), both formats.
  const merge = await patch(app, { title: 'Dune Messiah' }, MERGE_PATCH)
  t.equal(merge.statusCode, 200, merge.body)
  t.same(merge.json(), sent)
  const json = await patch(app, [{ op: 'replace', path: '/title', value: 'Dune Messiah' }])
  t.equal(json.statusCode, 200, json.body)
  t.same(json.json(), sent)
  // The handler gets the original values: Dates stay Dates, the same objects.
  t.ok(stored?.createdAt instanceof Date)
  t.equal(stored?.createdAt, created)
  t.equal(stored?.meta.updatedAt, updated)
  t.equal(stored?.history[0]?.at, seen)

  // A Date replaced by a string through the patch.
  const replaced = await patch(app, { publishedAt: '1966-01-01T00:00:00.000Z' }, MERGE_PATCH)
  t.equal(replaced.statusCode, 200, replaced.body)
  t.equal(replaced.json().publishedAt, '1966-01-01T00:00:00.000Z')
  t.equal(stored?.publishedAt as unknown, '1966-01-01T00:00:00.000Z')
  const nested = await patch(app, [
    { op: 'replace', path: '/meta/updatedAt', value: '2023-01-01T00:00:00.000Z' },
    { op: 'add', path: '/history/-', value: { at: '2024-01-01T00:00:00.000Z' } },
  ])
  t.equal(nested.statusCode, 200, nested.body)
  t.same(nested.json().history, [
    { at: '2022-03-04T05:06:07.000Z' },
    { at: '2024-01-01T00:00:00.000Z' },
  ])
  t.equal(stored?.history[0]?.at, seen)

  // An invalid result is still 422, naming only the bad fields (never the Dates).
  const invalid = await patch(
    app,
    { title: '', publishedAt: 'soon', meta: { updatedAt: 7 } },
    MERGE_PATCH,
  )
  t.equal(invalid.statusCode, 422)
  t.equal(invalid.json().error.code, ErrorCode.PATCH_RESULT_INVALID)
  t.same(
    invalid
      .json()
      .error.details.map((d: { field: string }) => d.field)
      .sort(),
    ['resource/meta/updatedAt', 'resource/publishedAt', 'resource/title'],
  )
  const invalidJson = await patch(app, [{ op: 'replace', path: '/history/0/at', value: 1 }])
  t.equal(invalidJson.statusCode, 422)
  t.same(
    invalidJson.json().error.details.map((d: { field: string }) => d.field),
    ['resource/history/0/at'],
  )
})

test('config.patch.schema, $ref to shared schemas, 2xx and content-wrapped response schemas', async (t) => {
  const app = Fastify()
  await app.register(restwellPatch, { ajv: { formats: { isbn: /^\d{13}$/ } } })
  app.addSchema({ $id: 'Tag', type: 'string', maxLength: 5 })
  const tagged = { type: 'object', properties: { tags: { type: 'array', items: { $ref: 'Tag' } } } }
  app.patch('/a', { config: { patch: { schema: tagged } } }, async (request) =>
    request.applyPatch({ tags: [] }),
  )
  app.patch(
    '/b',
    {
      schema: {
        response: {
          '2xx': { type: 'object', properties: { isbn: { type: 'string', format: 'isbn' } } },
        },
      },
    },
    async (request) => request.applyPatch({}),
  )
  app.patch(
    '/c',
    {
      schema: {
        response: {
          200: { content: { 'application/json': { schema: { type: 'object', required: ['n'] } } } },
        },
      },
    },
    async (request) => request.applyPatch({ n: 1 }),
  )
  app.patch(
    '/d',
    {
      schema: { response: { 200: { type: 'object', required: ['n'] } } },
      config: { patch: { schema: false } },
    },
    async (request) => ({ n: Object.keys(request.applyPatch({ n: 1 })).length }),
  )
  t.equal((await patch(app, { tags: ['ok'] }, MERGE_PATCH, '/a')).statusCode, 200)
  t.equal((await patch(app, { tags: ['ok', 'too long'] }, MERGE_PATCH, '/a')).statusCode, 422)
  t.equal(
    (await patch(app, { tags: ['ok', 'toolong'] }, MERGE_PATCH, '/a')).statusCode,
    422,
    'cached validator',
  )
  t.equal((await patch(app, { isbn: '9780441013593' }, MERGE_PATCH, '/b')).statusCode, 200)
  t.equal((await patch(app, { isbn: '978' }, MERGE_PATCH, '/b')).statusCode, 422)
  t.equal((await patch(app, { n: null }, MERGE_PATCH, '/c')).statusCode, 422)
  t.equal((await patch(app, { n: null }, MERGE_PATCH, '/d')).statusCode, 200)
})

test('formats are checked as Fastify checks a POST or PUT body (ajv-formats): 422, nothing stored', async (t) => {
  const User = {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'email', 'born'],
    properties: {
      id: { type: 'integer', readOnly: true },
      email: { type: 'string', format: 'email' },
      born: { type: 'string', format: 'date', formatMaximum: '2100-01-01' },
    },
  }
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellPatch)
  let user = { id: 1, email: 'ann@example.com', born: '1990-05-01' }
  app.put('/users/:id', { schema: { body: User, response: { 200: User } } }, async (request) => {
    user = { ...(request.body as typeof user), id: 1 }
    return user
  })
  app.patch('/users/:id', { schema: { response: { 200: User } } }, async (request) => {
    user = request.applyPatch(user)
    return user
  })
  const bad = { email: 'not-an-email', born: 'someday' }
  const put = await app.inject({ method: 'PUT', url: '/users/1', payload: { id: 1, ...bad } })
  t.equal(put.statusCode, 400, 'Fastify refuses the formats on PUT')
  for (const res of [
    await patch(app, bad, MERGE_PATCH, '/users/1'),
    await patch(
      app,
      [{ op: 'replace', path: '/email', value: 'not-an-email' }],
      JSON_PATCH,
      '/users/1',
    ),
    await patch(app, { born: '2021-02-30' }, MERGE_PATCH, '/users/1'),
    await patch(app, { born: '2200-01-01' }, MERGE_PATCH, '/users/1'),
  ]) {
    t.equal(res.statusCode, 422, res.body)
    t.equal(res.json().error.code, ErrorCode.PATCH_RESULT_INVALID)
  }
  const fields = (await patch(app, bad, MERGE_PATCH, '/users/1'))
    .json()
    .error.details.map((d: { field: string }) => d.field)
  t.same([...new Set(fields)].sort(), ['resource/born', 'resource/email'])
  t.same(user, { id: 1, email: 'ann@example.com', born: '1990-05-01' }, 'nothing stored')
  const good = await patch(
    app,
    { email: 'bob@example.org', born: '2000-02-29' },
    MERGE_PATCH,
    '/users/1',
  )
  t.equal(good.statusCode, 200, good.body)
  t.same(user, { id: 1, email: 'bob@example.org', born: '2000-02-29' })
})

test('ajv.formats given to the plugin win over ajv-formats; validateFormats: false turns formats off', async (t) => {
  const Thing = {
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email' },
      day: { type: 'string', format: 'date' },
    },
  }
  async function appWith(ajv: PatchOptions['ajv']): Promise<FastifyInstance> {
    const app = Fastify()
    await app.register(restwellPatch, { ajv })
    app.patch('/things/1', { schema: { response: { 200: Thing } } }, async (request) =>
      request.applyPatch({ email: 'a@b.example', day: '2020-01-01' }),
    )
    return app
  }
  // The caller's `email` (anything with an @) replaces ajv-formats' one; `date` is untouched, and
  // an entry left undefined is skipped (as Ajv's constructor skips it).
  const own = await appWith({ formats: { email: /@/, date: undefined } })
  t.equal((await patch(own, { email: 'x@y' }, MERGE_PATCH, '/things/1')).statusCode, 200)
  t.equal((await patch(own, { email: 'xy' }, MERGE_PATCH, '/things/1')).statusCode, 422)
  t.equal((await patch(own, { day: 'someday' }, MERGE_PATCH, '/things/1')).statusCode, 422)
  const off = await appWith({ validateFormats: false })
  t.equal(
    (await patch(off, { email: 'xy', day: 'someday' }, MERGE_PATCH, '/things/1')).statusCode,
    200,
  )
})

test('413 when a JSON Patch holds more than maxOperations operations', async (t) => {
  const { app } = await build({ maxOperations: 2 })
  const op = { op: 'test', path: '/id', value: '1' }
  t.equal((await patch(app, [op, op])).statusCode, 200)
  const res = await patch(app, [op, op, op])
  t.equal(res.statusCode, 413)
})

test('status 204: plugin-wide or per route; errors keep their status', async (t) => {
  const { app } = await build({ status: 204 })
  const res = await patch(app, [{ op: 'replace', path: '/title', value: 'X' }])
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  t.equal(res.headers['content-type'], undefined)
  t.equal((await patch(app, [{ op: 'test', path: '/title', value: 'no' }])).statusCode, 409)
  const { app: app2 } = await build({}, (app) => {
    app.patch(
      '/quiet',
      { config: { patch: { status: 204, schema: false } } },
      async (request, reply) => {
        request.applyPatch({})
        if (request.headers['x-accepted'] !== undefined)
          return reply.code(202).send({ queued: true })
        return { ignored: true }
      },
    )
  })
  t.equal((await patch(app2, [], JSON_PATCH, '/quiet')).statusCode, 204)
  const accepted = await app2.inject({
    method: 'PATCH',
    url: '/quiet',
    headers: { 'content-type': JSON_PATCH, 'x-accepted': '1' },
    payload: '[]',
  })
  t.equal(accepted.statusCode, 202)
  t.same(accepted.json(), { queued: true })
})

test('config.patch false and everyPatchRoute false leave routes alone', async (t) => {
  const { app } = await build({ everyPatchRoute: false }, (app) => {
    app.patch('/plain', async (request) => ({ body: request.body, patch: request.patch }))
    app.patch('/opted', { config: { patch: true } }, async (request) =>
      request.applyPatch({ a: 1 }),
    )
    app.post('/post-patch', { config: { patch: {} } }, async (request) =>
      request.applyPatch({ a: 1 }),
    )
    app.post('/plain-post', async (request) => request.body)
    app.patch('/misuse', async (request) => request.applyPatch({}))
  })
  const plain = await app.inject({ method: 'PATCH', url: '/plain', payload: { a: 1 } })
  t.same(plain.json(), { body: { a: 1 }, patch: null })
  t.equal(
    (await patch(app, { title: 'x' }, MERGE_PATCH)).statusCode,
    415,
    '/books/:id is not on either',
  )
  t.same((await patch(app, { b: 2 }, MERGE_PATCH, '/opted')).json(), { a: 1, b: 2 })
  t.same(
    (
      await app.inject({
        method: 'POST',
        url: '/post-patch',
        headers: { 'content-type': MERGE_PATCH },
        payload: '{"c":3}',
      })
    ).json(),
    { a: 1, c: 3 },
  )
  const other = await app.inject({
    method: 'POST',
    url: '/plain-post',
    headers: { 'content-type': MERGE_PATCH },
    payload: '{}',
  })
  t.equal(other.statusCode, 415)
  t.equal(other.headers['accept-patch'], undefined)
  const misuse = await app.inject({ method: 'PATCH', url: '/misuse', payload: {} })
  t.equal(misuse.statusCode, 500, 'applyPatch on a route without the plugin is a programming error')

  const { app: app2 } = await build({}, (app) => {
    app.patch('/off', { config: { patch: false } }, async (request) => request.body)
  })
  t.same((await app2.inject({ method: 'PATCH', url: '/off', payload: { a: 1 } })).json(), { a: 1 })
})

test('a patch route without a body schema gets one per media type (for OpenAPI)', async (t) => {
  const app = Fastify()
  await app.register(restwellPatch)
  const bodies: Record<string, unknown> = {}
  app.addHook('onRoute', (route) => {
    bodies[route.url] = route.schema?.body
  })
  const own = { type: 'array' }
  app.patch('/a', { config: { patch: { formats: ['json-patch'] } } }, async (request) =>
    request.applyPatch({ a: 1 }),
  )
  app.patch('/b', { schema: { body: own } }, async (request) => request.applyPatch([1]))
  app.patch('/c', { schema: { response: { 200: { type: 'object' } } } }, async (request) =>
    request.applyPatch({}),
  )
  await app.ready()
  t.same(Object.keys((bodies['/a'] as { content: object }).content), [JSON_PATCH])
  t.equal(bodies['/b'], own, 'a body schema of the route is kept')
  t.same(Object.keys((bodies['/c'] as { content: object }).content), [JSON_PATCH, MERGE_PATCH])
  t.same(
    (
      await patch(
        app,
        [{ op: 'add', path: '/b', value: { deep: [1, 'x', null] }, extra: 1 }],
        JSON_PATCH,
        '/a',
      )
    ).json(),
    { a: 1, b: { deep: [1, 'x', null] } },
  )
  t.same((await patch(app, [{ op: 'add', path: '/-', value: 2 }], JSON_PATCH, '/b')).json(), [1, 2])
  t.equal((await patch(app, 'null', MERGE_PATCH, '/c')).statusCode, 422, 'null is no object')
  t.same((await patch(app, '{"x":"1"}', MERGE_PATCH, '/c')).json(), {})
})

test('a route for PUT and PATCH is a patch route for PATCH requests only', async (t) => {
  const app = Fastify()
  await app.register(restwellPatch)
  app.route({
    method: ['PUT', 'PATCH'],
    url: '/things/:id',
    handler: async (request) =>
      request.method === 'PATCH' ? request.applyPatch({ a: 1 }) : { put: request.body },
  })
  const put = await app.inject({ method: 'PUT', url: '/things/1', payload: { b: 2 } })
  t.same(put.json(), { put: { b: 2 } })
  t.same((await patch(app, { b: 2 }, MERGE_PATCH, '/things/1')).json(), { a: 1, b: 2 })
  t.equal((await patch(app, { b: 2 }, 'application/json', '/things/1')).statusCode, 415)
})

test('Accept-Patch on route-level OPTIONS and on a 405 thrown for the path', async (t) => {
  const { app } = await build({}, (app) => {
    app.options('/books/:id', async (_request, reply) =>
      reply.header('allow', 'GET, PATCH, OPTIONS').send(),
    )
    app.put('/books/:id', async () => {
      throw httpErrors.methodNotAllowed('No PUT here', { headers: { allow: 'GET, PATCH' } })
    })
    app.options('/authors/:id', async () => 'no patch here')
    app.delete('/authors/:id', async (_request, reply) => reply.code(405).send())
  })
  const options = await app.inject({ method: 'OPTIONS', url: '/books/1' })
  t.equal(options.statusCode, 200)
  t.equal(options.headers['accept-patch'], BOTH)
  const put = await app.inject({ method: 'PUT', url: '/books/1?x=1' })
  t.equal(put.statusCode, 405)
  t.equal(put.headers['accept-patch'], BOTH)
  t.equal(put.headers.allow, 'GET, PATCH')
  t.equal(
    (await app.inject({ method: 'OPTIONS', url: '/authors/1' })).headers['accept-patch'],
    undefined,
  )
  t.equal(
    (await app.inject({ method: 'DELETE', url: '/authors/1' })).headers['accept-patch'],
    undefined,
  )
  t.equal(app.restwellPatch.acceptPatch('/books/1'), BOTH)
  t.equal(app.restwellPatch.acceptPatch('/authors/1'), undefined)
  t.same(app.restwellPatch.formatsFor('/books/1?a=b'), ['json-patch', 'merge-patch'])
  app.restwellPatch.formatsFor('/books/1').pop()
  t.same(app.restwellPatch.formatsFor('/books/1'), ['json-patch', 'merge-patch'], 'a fresh list')
})

test('Accept-Patch on OPTIONS and 405 answered for an unrouted method (as @restwell/methods does)', async (t) => {
  const app = Fastify({ routerOptions: { ignoreTrailingSlash: true, caseSensitive: false } })
  await app.register(restwellErrors)
  answerUnroutedMethods(app)
  await app.register(restwellPatch)
  app.patch('/v1/books/:id', { config: { patch: { formats: ['merge-patch'] } } }, async () => ({}))
  app.patch('/v1/books/:id/cover', async () => ({}))
  const options = await app.inject({ method: 'OPTIONS', url: '/V1/Books/7/' })
  t.equal(options.statusCode, 204)
  t.equal(options.headers['accept-patch'], MERGE_PATCH)
  const del = await app.inject({ method: 'DELETE', url: '/v1/books/7/cover' })
  t.equal(del.statusCode, 405)
  t.equal(del.headers['accept-patch'], BOTH)
  const elsewhere = await app.inject({ method: 'DELETE', url: '/v1/authors/7' })
  t.equal(elsewhere.statusCode, 405)
  t.equal(elsewhere.headers['accept-patch'], undefined)
})

test('an OPTIONS answered with an error carries no Accept-Patch: a 401 looks the same on every path', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  // Stands in for @restwell/auth's hideRoutes: an anonymous request gets 401 on every path.
  app.addHook('onRequest', async (request) => {
    if (request.headers.authorization === undefined) throw httpErrors.unauthorized('Who are you?')
    if (request.is404 && request.method === 'OPTIONS') throw httpErrors.notFound('No route')
  })
  await app.register(restwellPatch)
  app.patch('/books/:id', async () => ({}))
  app.options('/authors/:id', async () => ({}))
  app.patch('/authors/:id', async () => ({}))
  const names = (res: { headers: Record<string, unknown> }) =>
    Object.keys(res.headers).filter((name) => name !== 'date' && name !== 'content-length')
  const unknown = await app.inject({ method: 'OPTIONS', url: '/nothing/1' })
  for (const url of ['/books/1', '/authors/1']) {
    const res = await app.inject({ method: 'OPTIONS', url })
    t.equal(res.statusCode, 401, url)
    t.equal(res.headers['accept-patch'], undefined, url)
    t.same(names(res), names(unknown), `${url}: the headers of an unknown path's 401`)
  }
  const missing = await app.inject({
    method: 'OPTIONS',
    url: '/books/1',
    headers: { authorization: 'Bearer x' },
  })
  t.same([missing.statusCode, missing.headers['accept-patch']], [404, undefined], 'nor a 404')
  const allowed = await app.inject({
    method: 'OPTIONS',
    url: '/authors/1',
    headers: { authorization: 'Bearer x' },
  })
  t.same([allowed.statusCode, allowed.headers['accept-patch']], [200, BOTH], 'a 200 does')
})

test('Accept-Patch wherever Fastify routes the path: router options, encodings, absolute form', async (t) => {
  // useSemicolonDelimiter is a router option Fastify's types do not list.
  const routerOptions = {
    ignoreDuplicateSlashes: true,
    useSemicolonDelimiter: true,
    maxParamLength: 8,
  }
  const app = Fastify({ routerOptions })
  await app.register(restwellErrors)
  // Stands in for @restwell/methods, whose Allow asks Fastify's router (`findRoute`).
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return
    const allowsPatch = app.findRoute({ method: 'PATCH', url: request.url }) !== null
    const allow = allowsPatch ? 'PATCH' : ''
    if (request.method === 'OPTIONS') return reply.code(204).header('allow', allow).send()
    throw httpErrors.methodNotAllowed('Not here', { headers: { allow } })
  })
  await app.register(restwellPatch)
  app.patch('/books/:id', async () => ({}))
  await app.register(
    async (shelves) => {
      shelves.patch('/', { config: { patch: { formats: ['merge-patch'] } } }, async () => ({}))
    },
    { prefix: '/shelves' },
  )
  await app.ready()
  for (const url of [
    '/books/1',
    '//books//1',
    '/books/1;v=2',
    '/b%6Foks/1',
    '/books/%C3%A9',
    'http://example.com/books/1?x=1',
    '/shelves',
    '/shelves/',
  ]) {
    const options = await app.inject({ method: 'OPTIONS', url })
    t.equal(options.headers.allow, 'PATCH', `Fastify routes ${url}`)
    t.equal(
      options.headers['accept-patch'],
      url.startsWith('/shelves') ? MERGE_PATCH : BOTH,
      `OPTIONS ${url}`,
    )
    const del = await app.inject({ method: 'DELETE', url })
    t.equal(del.statusCode, 405)
    t.ok(del.headers['accept-patch'], `DELETE ${url}`)
  }
  // Where Fastify routes no PATCH, none is advertised.
  for (const url of ['/books%2F1', '/books/1/2', '/shelves//x', '/books/123456789']) {
    const options = await app.inject({ method: 'OPTIONS', url })
    t.equal(options.headers['accept-patch'], undefined, `OPTIONS ${url}`)
  }
  // An absolute-form target (RFC 9112 §3.2.2), which inject would turn into a path.
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as AddressInfo
  const response = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(
        `OPTIONS http://example.com//books/1 HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n`,
      ),
    )
    let data = ''
    socket.on('data', (chunk) => {
      data += chunk
    })
    socket.on('end', () => resolve(data))
    socket.on('error', reject)
  })
  t.match(response, /^HTTP\/1\.1 204/)
  t.match(response, /^allow: PATCH\r$/im)
  t.ok(response.includes(`\r\naccept-patch: ${BOTH}\r\n`), response)
})

test('advertise: false sends no Accept-Patch on OPTIONS (415 still carries it)', async (t) => {
  const { app } = await build({ advertise: false }, (app) => {
    app.options('/books/:id', async () => '')
  })
  t.equal(
    (await app.inject({ method: 'OPTIONS', url: '/books/1' })).headers['accept-patch'],
    undefined,
  )
  t.equal((await patch(app, {}, 'application/json')).headers['accept-patch'], BOTH)
})

test('a precondition checked in preHandler (If-Match) runs before the patch is applied', async (t) => {
  const { app, books } = await build({}, (app, books) => {
    app.patch<{ Params: { id: string } }>(
      '/guarded/:id',
      {
        preHandler: async (request) => {
          if (request.headers['if-match'] !== '"v1"') throw httpErrors.preconditionFailed('Stale')
        },
      },
      async (request) => {
        const next = request.applyPatch(books.get(request.params.id))
        books.set(request.params.id, next as BookDoc)
        return next
      },
    )
  })
  const stale = await app.inject({
    method: 'PATCH',
    url: '/guarded/1',
    headers: { 'content-type': JSON_PATCH, 'if-match': '"v0"' },
    payload: JSON.stringify([{ op: 'replace', path: '/title', value: 'X' }]),
  })
  t.equal(stale.statusCode, 412)
  t.equal(books.get('1')?.title, 'Dune')
  const fresh = await app.inject({
    method: 'PATCH',
    url: '/guarded/1',
    headers: { 'content-type': JSON_PATCH, 'if-match': '"v1"' },
    payload: JSON.stringify([{ op: 'replace', path: '/title', value: 'X' }]),
  })
  t.equal(fresh.statusCode, 200)
  t.equal(books.get('1')?.title, 'X')
})

test('registered twice (root and a child scope), the parsers are shared', async (t) => {
  const app = Fastify()
  await app.register(restwellPatch)
  await app.register(async (child) => {
    await child.register(restwellPatch, { maxOperations: 1 })
    child.patch('/child', async (request) => request.applyPatch({ a: 1 }))
  })
  t.same((await patch(app, { b: 1 }, MERGE_PATCH, '/child')).json(), { a: 1, b: 1 })
})

test('options are validated at registration; config.patch at route registration', async (t) => {
  const bad: unknown[] = [
    { status: 201 },
    { formats: [] },
    { formats: ['xml'] },
    { maxOperations: 0 },
    { readOnly: ['/a~2'] },
    { unknown: true },
  ]
  for (const options of bad) {
    await t.rejects(
      async () => {
        const app = Fastify()
        await app.register(restwellPatch, options as PatchOptions)
      },
      OptionsError,
      JSON.stringify(options),
    )
  }
  const app = Fastify()
  await app.register(restwellPatch)
  t.throws(
    () => app.patch('/x', { config: { patch: { status: 201 } as never } }, async () => ({})),
    /config\.patch of PATCH \/x/,
  )
  t.throws(
    () => app.patch('/y', { config: { patch: { readOnly: ['/~'] } } }, async () => ({})),
    /readOnly/,
  )
})

test('a JSON Schema body that admits no array is refused beside JSON Patch, naming the fix', async (t) => {
  const app = Fastify()
  await app.register(restwellPatch)
  const merge = { type: 'object', properties: { title: { type: 'string' } } }
  t.throws(() => app.patch('/books/:id', { schema: { body: merge } }, async () => ({})), {
    name: 'OptionsError',
    option: 'schema.body',
    message:
      "@restwell/patch (PATCH /books/:id): option \"schema.body\" refuses JSON Patch documents (arrays of operations), so every application/json-patch+json body the route offers would be a 400: set config.patch.formats to ['merge-patch'], or describe the body per media type (schema.body.content['application/merge-patch+json'].schema)",
  })
  t.throws(
    () =>
      app.patch(
        '/only',
        {
          config: { patch: { formats: ['json-patch'] } },
          schema: { body: { type: ['object', 'null'] } },
        },
        async () => ({}),
      ),
    { message: /refuses JSON Patch documents .* would be a 400: describe the body per media type/ },
  )
  // Fine: merge patches only; a body that admits arrays; one per media type; no top-level type.
  app.patch(
    '/m',
    { config: { patch: { formats: ['merge-patch'] } }, schema: { body: merge } },
    async (request) => request.applyPatch({ title: 'Dune' }),
  )
  app.patch('/a', { schema: { body: { type: ['array', 'object'] } } }, async () => ({}))
  app.patch(
    '/c',
    { schema: { body: { content: { [MERGE_PATCH]: { schema: merge } } } } },
    async () => ({}),
  )
  app.patch('/n', { schema: { body: { anyOf: [merge, { type: 'array' }] } } }, async () => ({}))
  await app.ready()
  t.same((await patch(app, '{"title":"Emma"}', MERGE_PATCH, '/m')).json(), { title: 'Emma' })
})

test('over a real socket: 415 with Accept-Patch, then a patch', async (t) => {
  const { app } = await build()
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const url = `http://127.0.0.1:${port}/books/1`
  const refused = await fetch(url, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: '{"title":"x"}',
  })
  t.equal(refused.status, 415)
  t.equal(refused.headers.get('accept-patch'), BOTH)
  const ok = await fetch(url, {
    method: 'PATCH',
    headers: { 'content-type': MERGE_PATCH },
    body: '{"title":"Over the wire"}',
  })
  t.equal(ok.status, 200)
  t.equal(((await ok.json()) as { title: string }).title, 'Over the wire')
})

test('a patch body keeps its bytes on the request (BODY_BYTES), as they were sent', async (t) => {
  let kept: Buffer | undefined
  const { app } = await build({}, (instance) => {
    instance.addHook('preHandler', async (request) => {
      kept = bodyBytesOf(request)
    })
  })
  t.teardown(() => app.close())
  const payload = '{ "title": "Emma" }'
  const patched = await app.inject({
    method: 'PATCH',
    url: '/books/1',
    headers: { 'content-type': MERGE_PATCH },
    payload,
  })
  t.equal(patched.statusCode, 200)
  t.equal(kept?.toString(), payload, 'the bytes, whitespace and all')
})
