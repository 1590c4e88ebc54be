import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { Type } from '@sinclair/typebox'
import fc from 'fast-check'
import { test } from 'tap'
import { isoNow } from '../src/body.js'
import {
  buildErrorBody,
  createError,
  ERROR_STATUSES,
  genReqId,
  HttpError,
  httpErrors,
  isHttpError,
  normalizeError,
  OptionsError,
  reasonPhrase,
  safeRequestId,
  statusCode,
  validateOptions,
  validationDetails,
} from '../src/index.js'

test('a factory for every 4xx and 5xx status of the spec', async (t) => {
  const statuses = Object.keys(ERROR_STATUSES).map(Number)
  const made = Object.values(httpErrors).map((factory) => factory())
  t.same(made.map((e) => e.statusCode).sort(), statuses.sort())
  for (const error of made) {
    t.ok(isHttpError(error))
    t.equal(error.status, error.statusCode)
    t.equal(error.message, reasonPhrase(error.statusCode))
    t.equal(error.code, statusCode(error.statusCode))
    t.equal(error.expose, error.statusCode < 500)
  }
  t.equal(httpErrors.imATeapot().code, 'IM_A_TEAPOT')
  t.equal(httpErrors.uriTooLong().code, 'URI_TOO_LONG')
})

test('HttpError carries status, code, message, details, headers and cause', async (t) => {
  const cause = new Error('root')
  const error = createError(409, 'taken', {
    code: 'ISBN_TAKEN',
    details: [{ field: 'body/isbn', message: 'taken' }],
    headers: { 'x-a': '1' },
    cause,
  })
  t.ok(error instanceof HttpError)
  t.ok(error instanceof Error)
  t.equal(error.name, 'HttpError')
  t.equal(error.cause, cause)
  t.same(error.headers, { 'x-a': '1' })
  t.throws(() => new HttpError(302), RangeError)
  t.throws(() => new HttpError(400.5), RangeError)
  t.throws(() => new HttpError(600), RangeError)
})

test('HttpError: name and brand are inherited, cause is own only when given', async (t) => {
  const error = new HttpError(500, 'boom')
  t.equal(error.name, 'HttpError')
  t.notOk(Object.hasOwn(error, 'name'))
  t.notOk('cause' in error, 'no cause property without a cause')
  t.equal(String(error), 'HttpError: boom')
  t.match(error.stack, /^HttpError: boom\n/)
  t.ok(isHttpError(error))
  t.same(Object.keys(error), ['statusCode', 'code', 'details', 'headers', 'expose'])
  t.ok(Object.hasOwn(new HttpError(400, 'x', { cause: 0 }), 'cause'), 'a falsy cause is kept')
})

test('a 4xx carries no stack trace; a 5xx keeps its own', async (t) => {
  const before = Error.stackTraceLimit
  t.equal(httpErrors.notFound().stack?.split('\n').length, 1)
  t.match(httpErrors.internalServerError().stack, /\n\s+at /)
  t.equal(Error.stackTraceLimit, before, 'the global limit is restored')
})

test('isHttpError matches by brand, not by class identity', async (t) => {
  t.notOk(isHttpError(null))
  t.notOk(isHttpError('x'))
  t.notOk(isHttpError(new Error('x')))
  t.notOk(isHttpError({ statusCode: 400 }))
  t.ok(isHttpError({ [Symbol.for('restwell.http-error')]: true }))
})

test('reason phrases and default codes outside the table', async (t) => {
  t.equal(reasonPhrase(499), 'Client Error')
  t.equal(reasonPhrase(599), 'Server Error')
  t.equal(statusCode(599), 'SERVER_ERROR')
})

test('validation details map AJV errors to <part>/<pointer>', async (t) => {
  t.same(
    validationDetails(
      [
        {
          keyword: 'required',
          instancePath: '/author',
          params: { missingProperty: 'name' },
          message: 'x',
        },
        { keyword: 'type', instancePath: '/tags/0', params: {}, message: 'must be string' },
        { keyword: 'additionalProperties', instancePath: '', params: { additionalProperty: 'x' } },
        {},
        null,
      ],
      'body',
    ),
    [
      { field: 'body/author/name', message: 'x', code: 'REQUIRED' },
      { field: 'body/tags/0', message: 'must be string', code: 'TYPE' },
      { field: 'body/x', message: 'is invalid', code: 'ADDITIONALPROPERTIES' },
      { field: 'body', message: 'is invalid', code: 'INVALID' },
      { field: 'body', message: 'is invalid', code: 'INVALID' },
    ],
  )
  t.equal(validationDetails([{ instancePath: '' }], undefined)[0]?.field, 'body')
  t.equal(validationDetails([{ instancePath: '/id' }], 'params')[0]?.field, 'params/id')
})

test('validation details from Zod issues (fastify-type-provider-zod): unrecognized keys are named', async (t) => {
  // As fastify-type-provider-zod shapes them: instancePath is `/` + the path, params the rest.
  const message = 'Unrecognized keys: "extra", "a/b"'
  t.same(
    validationDetails(
      [
        {
          keyword: 'unrecognized_keys',
          instancePath: '/',
          params: { keys: ['extra', 'a/b'] },
          message,
        },
        { keyword: 'unrecognized_keys', instancePath: '/author', params: { keys: ['x'] }, message },
        {
          keyword: 'invalid_type',
          instancePath: '/',
          params: { expected: 'object' },
          message: 'm',
        },
        { keyword: 'invalid_type', instancePath: '/title', params: {}, message: 'm' },
      ],
      'resource',
    ).map((d) => [d.field, d.code]),
    [
      ['resource/extra', 'UNRECOGNIZED_KEYS'],
      ['resource/a~1b', 'UNRECOGNIZED_KEYS'],
      ['resource/author/x', 'UNRECOGNIZED_KEYS'],
      ['resource', 'INVALID_TYPE'],
      ['resource/title', 'INVALID_TYPE'],
    ],
  )
  t.same(
    validationDetails(
      [
        { keyword: 'unrecognized_keys', instancePath: '', params: { keys: [] } },
        { keyword: 'unrecognized_keys', instancePath: '', params: { keys: [1] } },
        { keyword: 'unrecognized_keys', instancePath: '', params: null },
        { keyword: 'type', instancePath: '/', params: {} },
      ],
      'body',
    ).map((d) => d.field),
    ['body', 'body', 'body', 'body/'],
    'no usable keys: the object itself; AJV\'s `/` is the member ""',
  )
})

test('normalizeError never throws and never exposes a 5xx message', async (t) => {
  fc.assert(
    fc.property(fc.anything(), (value) => {
      const n = normalizeError(value)
      return n.statusCode >= 400 && n.statusCode <= 599 && typeof n.code === 'string'
    }),
  )
  const masked = normalizeError(
    new HttpError(500, 'secret', { details: [{ field: 'a', message: 'b' }] }),
  )
  t.equal(masked.message, 'Internal Server Error')
  t.same(masked.details, [])
  const noHeaders = normalizeError({ statusCode: 400, headers: 'nope' })
  t.same(noHeaders.headers, {})
})

test('buildErrorBody: details without a code stay without one', async (t) => {
  const body = buildErrorBody(
    'structured',
    {
      statusCode: 400,
      code: 'X',
      message: 'm',
      details: [{ field: 'f', message: 'g' }],
      headers: {},
    },
    { requestId: 'r', timestamp: 't', instance: '/' },
  )
  t.same(body, {
    error: {
      code: 'X',
      message: 'm',
      details: [{ field: 'f', message: 'g' }],
      requestId: 'r',
      timestamp: 't',
    },
  })
})

test('isoNow: the current millisecond in ISO 8601, formatted once per millisecond', async (t) => {
  const realNow = Date.now
  const realToIso = Date.prototype.toISOString
  t.teardown(() => {
    Date.now = realNow
    Date.prototype.toISOString = realToIso
  })
  let clock = Date.UTC(2026, 10, 22, 23, 0, 0, 5)
  let formats = 0
  Date.now = () => clock
  Date.prototype.toISOString = function (this: Date) {
    formats++
    return realToIso.call(this)
  }
  t.equal(isoNow(), '2026-11-22T23:00:00.005Z')
  t.equal(isoNow(), '2026-11-22T23:00:00.005Z')
  t.equal(formats, 1, 'the same millisecond is formatted once')
  clock += 1
  t.equal(isoNow(), '2026-11-22T23:00:00.006Z', 'the next millisecond is the next value')
  clock += 86_400_000
  t.equal(isoNow(), '2026-11-23T23:00:00.006Z')
  t.equal(formats, 3)
})

test('request ids', async (t) => {
  t.equal(safeRequestId('abc'), 'abc')
  t.equal(safeRequestId(['abc']), undefined)
  t.equal(safeRequestId('a b'), undefined)
  const uuid = randomUUID()
  t.equal(genReqId({ headers: { 'x-request-id': uuid } } as unknown as IncomingMessage), uuid)
  t.match(genReqId({ headers: {} } as unknown as IncomingMessage), /^[0-9a-f-]{36}$/)
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), (value) => {
      const id = safeRequestId(value)
      return id === undefined || (id === value && id.length <= 128 && !/\s/.test(id))
    }),
  )
})

test('validateOptions returns typed options or names the bad one', async (t) => {
  const schema = Type.Object({ limits: Type.Object({ max: Type.Integer({ minimum: 1 }) }) })
  t.same(validateOptions('p', schema, { limits: { max: 3 } }), { limits: { max: 3 } })
  t.throws(() => validateOptions('p', schema, { limits: { max: 0 } }), {
    message: 'p: option "limits.max" must be an integer ≥ 1 (got 0)',
  })
  t.throws(() => validateOptions('p', Type.Object({}), 5), OptionsError)
  t.same(validateOptions('p', Type.Object({}), null), {})
  t.same(validateOptions('p', Type.Object({}), undefined), {})
  t.throws(() => validateOptions('p', schema, []), { message: /must be an object/ })
  const error = t.throws(() => validateOptions('p', schema, { limits: { max: 'x'.repeat(100) } }))
  t.match((error as OptionsError).message, /\.\.\.\)$/)
  t.equal((error as OptionsError).option, 'limits.max')
  t.equal((error as OptionsError).code, 'RESTWELL_INVALID_OPTION')
  t.throws(() => validateOptions('p', Type.Object({ name: Type.String() }), {}), {
    message: 'p: option "name" is required: it must be a string',
  })
  t.throws(() => validateOptions('p', Type.Object({}, { minProperties: 1 }), {}), {
    message: 'p: option "(options)" must be a non-empty object (got {})',
  })
})

test('details[].field: a missing or additional property name is escaped as a JSON Pointer token', async (t) => {
  t.same(
    validationDetails(
      [
        { keyword: 'required', instancePath: '/a~1b', params: { missingProperty: 'c/d' } },
        {
          keyword: 'additionalProperties',
          instancePath: '',
          params: { additionalProperty: 'x~y' },
        },
        { keyword: 'required', instancePath: '', params: { missingProperty: '~1/' } },
      ],
      'body',
    ).map((d) => d.field),
    ['body/a~1b/c~1d', 'body/x~0y', 'body/~01~1'],
  )
})

/** RFC 6901 §4: the reference tokens of a pointer, unescaped (`~1` first, then `~0`). */
function pointerTokens(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
}

test('property: details[].field always parses back to the tokens it names', async () => {
  const token = fc.string({ unit: fc.constantFrom('a', '/', '~', '0', '1', 'é') })
  fc.assert(
    fc.property(
      fc.array(token, { maxLength: 4 }),
      token,
      fc.constantFrom('missingProperty', 'additionalProperty'),
      (path, name, key) => {
        // AJV's instancePath is already a pointer; the property name in params is raw.
        const instancePath = path
          .map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`)
          .join('')
        const [detail] = validationDetails(
          [{ keyword: 'required', instancePath, params: { [key]: name } }],
          'body',
        )
        const field = detail?.field ?? ''
        return (
          field.startsWith('body') &&
          JSON.stringify(pointerTokens(field.slice('body'.length))) ===
            JSON.stringify([...path, name])
        )
      },
    ),
  )
})

test('normalizeError: the reply status stands in for an error without one of its own', async (t) => {
  const plain = normalizeError(new Error('No book 7'), 404)
  t.equal(plain.statusCode, 404)
  t.equal(plain.code, 'NOT_FOUND')
  t.equal(plain.message, 'No book 7')
  const masked = normalizeError(new Error('db at 10.0.0.3'), 503)
  t.equal(masked.statusCode, 503)
  t.equal(masked.message, 'Service Unavailable')
  t.equal(normalizeError(httpErrors.conflict(), 404).statusCode, 409)
  t.equal(normalizeError({ status: 429 }, 404).statusCode, 429)
  t.equal(normalizeError(new Error('x'), 200).statusCode, 500)
  t.equal(normalizeError(new Error('x'), 600).statusCode, 500)
  t.equal(normalizeError(new Error('x'), 404.5).statusCode, 500)
  t.equal(normalizeError('thrown string', 400).statusCode, 400)
  t.equal(normalizeError(new Error('x')).statusCode, 500)
  fc.assert(
    fc.property(fc.anything(), fc.integer({ min: 100, max: 999 }), (value, replyStatus) => {
      const n = normalizeError(value, replyStatus)
      const exposed5xx = isHttpError(value) && value.expose
      return (
        n.statusCode >= 400 &&
        n.statusCode <= 599 &&
        (n.statusCode < 500 || exposed5xx || n.message === reasonPhrase(n.statusCode))
      )
    }),
  )
})
