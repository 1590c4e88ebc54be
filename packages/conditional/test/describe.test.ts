import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { conditional } from '../src/index.js'

const context = (methods: string[], config?: object) => ({
  route: { method: methods, url: '/x', handler: async () => null },
  instance: {} as FastifyInstance,
  methods,
  config,
  name: `${methods.join(',')} /x`,
})

const settings = (raw?: object) => ({ options: conditional.options(raw) }) as never
const says = (methods: string[], config?: object, raw?: object) =>
  conditional.describe?.(context(methods, config) as never, settings(raw))

test('describe: a GET has validators, 304, ranges (206, 416) and 412', async (t) => {
  const get = says(['GET'])
  t.same(
    get?.responses?.map(([status]) => status),
    [206, 304, 412, 416],
  )
  t.same(
    get?.requestHeaders?.map(([name]) => name),
    ['If-None-Match', 'If-Modified-Since', 'Range', 'If-Range'],
  )
  t.same(get?.responseHeaders, [
    ['ETag', 'Strong entity tag of this representation (per content coding)', [200]],
    ['Last-Modified', 'When the resource last changed (IMF-fixdate), when known', [200]],
    ['Accept-Ranges', '`bytes`', [200]],
  ])
  t.same(
    get?.statusHeaders?.map(([status]) => status),
    ['success'],
  )
  t.same(
    says(['HEAD'])?.responses?.map(([status]) => status),
    [206, 304, 412, 416],
    'HEAD: GET',
  )
})

test('describe: a QUERY is whole (no range), a write has If-Match and 412, 428 when required', async (t) => {
  const query = says(['QUERY'])
  t.same(
    query?.responses?.map(([status]) => status),
    [304, 412],
  )
  t.same(
    query?.responseHeaders?.map(([name]) => name),
    ['ETag', 'Last-Modified'],
  )
  const put = says(['PUT'])
  t.same(
    put?.responses?.map(([status]) => status),
    [412],
  )
  t.same(
    put?.requestHeaders?.map(([name]) => name),
    ['If-Match', 'If-Unmodified-Since'],
  )
  t.same(put?.responseHeaders, [], 'no validators on a write')
  const getValidator = () => ({ etag: 'v1' })
  t.same(
    says(['PUT'], { getValidator }, { requirePrecondition: true })?.responses?.at(-1)?.[0],
    428,
  )
  t.same(says(['PUT'], { getValidator, requirePrecondition: true })?.responses?.at(-1)?.[0], 428)
  t.same(says(['PUT'], { getValidator })?.responses?.at(-1)?.[0], 412, 'not required by default')
  t.same(
    says(['PUT'], {}, { requirePrecondition: true })?.responses?.at(-1)?.[0],
    412,
    'nothing to check',
  )
  t.same(says(['DELETE'])?.statusHeaders, [], 'no ETag on a DELETE')
  t.same(says(['OPTIONS'])?.responses, [], 'neither a read nor a write')
})
