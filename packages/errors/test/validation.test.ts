import { test } from 'tap'
import { ErrorCode, validationError } from '../src/index.js'

test('validationError: the 400 of a failed schema, worded as Fastify words it, each problem once', async (t) => {
  const error = validationError(
    [
      { instancePath: '/name', message: 'must be string', keyword: 'type', params: {} },
      {
        instancePath: '',
        message: "must have required property 'isbn'",
        keyword: 'required',
        params: { missingProperty: 'isbn' },
      },
      null,
      { instancePath: '/name', message: 'must be string', keyword: 'type', params: {} },
    ],
    'body',
  )
  t.equal(error.statusCode, 400)
  t.equal(error.code, ErrorCode.VALIDATION_ERROR)
  t.equal(
    error.message,
    "body/name must be string, body must have required property 'isbn', body is invalid",
  )
  t.same(error.details, [
    { field: 'body/name', message: 'must be string', code: 'TYPE' },
    { field: 'body/isbn', message: "must have required property 'isbn'", code: 'REQUIRED' },
    { field: 'body', message: 'is invalid', code: 'INVALID' },
  ])
})
