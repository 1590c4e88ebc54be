import { test } from 'tap'
import { overload } from '../src/index.js'

test('describe: 503 with Retry-After on every route', async (t) => {
  const said = overload.describe?.({} as never, {} as never)
  t.same(
    said?.responses?.map(([status]) => status),
    [503],
  )
  t.same(
    said?.responses?.[0]?.[2]?.headers?.map(([name]) => name),
    ['Retry-After'],
  )
})
