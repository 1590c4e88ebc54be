import { isConvention, mergeContributions } from '@restwell/core/internal'
import { test } from 'tap'
import { auth } from '../src/index.js'

test('the auth convention: a request step and a guard; Authorization is allowed, the challenge exposed', async (t) => {
  t.ok(isConvention(auth))
  t.same(auth.phases, ['request', 'guard'])
  // Authorization is no CORS-safelisted request header: a preflight must allow it by name.
  t.same(
    mergeContributions([{ convention: auth, options: auth.options({ verify: () => null }) }]),
    {
      queryParameters: [],
      requestHeaders: ['authorization'],
      responseHeaders: ['www-authenticate'],
    },
  )
})
