import { test } from 'tap'
import { methods } from '../src/index.js'

test('describe: 405 with Allow on every route', async (t) => {
  const said = methods.describe?.({} as never, {} as never)
  t.same(
    said?.responses?.map(([status]) => status),
    [405],
  )
  t.same(
    said?.responses?.[0]?.[2]?.headers?.map(([name]) => name),
    ['Allow'],
  )
})
