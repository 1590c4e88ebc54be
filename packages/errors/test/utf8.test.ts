import { test } from 'tap'
import { ErrorCode, invalidUtf8 } from '../src/index.js'

test('invalidUtf8: the one 400 for a body whose bytes are not UTF-8', async (t) => {
  const error = invalidUtf8()
  t.equal(error.statusCode, 400)
  t.equal(error.code, ErrorCode.INVALID_UTF8)
  t.equal(error.message, 'The request body is not valid UTF-8')
  t.same(error.details, [{ field: 'body', message: 'is not valid UTF-8', code: 'INVALID_UTF8' }])
})
