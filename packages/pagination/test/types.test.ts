import type { PageInfo } from '@restwell/core'
import { PAGE } from '@restwell/core/internal'
import { expectTypeOf } from 'expect-type'
import Fastify, { type FastifyPluginAsync, type FastifyReply } from 'fastify'
import { test } from 'tap'
import restwellPaginationDefault, {
  applyPagination,
  type CursorPosition,
  type PaginatedSlice,
  type PaginateOptions,
  type Pagination,
  type PaginationOptions,
  type RoutePaginationConfig,
  restwellPagination,
  type SortKey,
} from '../src/index.js'

test('types of options, decorators and route config', async (t) => {
  expectTypeOf(restwellPagination).toEqualTypeOf<FastifyPluginAsync<PaginationOptions>>()
  expectTypeOf(restwellPaginationDefault).toEqualTypeOf(restwellPagination)
  expectTypeOf<PaginationOptions>().toMatchTypeOf<{
    defaultLimit?: number
    maxLimit?: number
    clamp?: boolean
    unknownFilters?: 'reject' | 'ignore'
    totalHeader?: string | false
    cursorSecret?: string | string[]
    cursorTtl?: number
  }>()
  expectTypeOf<RoutePaginationConfig>().toMatchTypeOf<{
    sortable?: string[]
    defaultSort?: string
    filterable?: string[]
    cursor?: boolean
  }>()
  expectTypeOf<Pagination['sort']>().toEqualTypeOf<readonly SortKey[]>()
  expectTypeOf<Pagination['cursor']>().toEqualTypeOf<CursorPosition | undefined>()
  expectTypeOf<SortKey['direction']>().toEqualTypeOf<'asc' | 'desc'>()
  expectTypeOf<PaginateOptions>().toEqualTypeOf<{ total?: number; hasMore?: boolean }>()
  expectTypeOf(applyPagination<{ id: number }>).returns.toEqualTypeOf<
    PaginatedSlice<{ id: number }>
  >()

  const app = Fastify()
  await app.register(restwellPagination, { cursorSecret: 'x'.repeat(32) })
  app.get(
    '/books',
    { config: { pagination: { sortable: ['title'], cursor: true } } },
    async (request, reply) => {
      expectTypeOf(request.pagination).toEqualTypeOf<Pagination | null>()
      expectTypeOf(reply.paginate).parameters.toEqualTypeOf<
        [readonly unknown[], PaginateOptions?]
      >()
      expectTypeOf(reply.paginate([])).toEqualTypeOf<FastifyReply>()
      return reply.paginate([{ id: 1 }], { hasMore: false })
    },
  )
  app.get('/off', { config: { pagination: false } }, async () => 'off')
  app.get('/on', { config: { pagination: true } }, async (_request, reply) => {
    const page = (reply as unknown as { [PAGE]?: PageInfo })[PAGE]
    expectTypeOf(page).toEqualTypeOf<PageInfo | undefined>()
    return reply.paginate([])
  })
  t.throws(
    () =>
      // @ts-expect-error a limit is a number
      app.get('/bad', { config: { pagination: { defaultLimit: 'x' } } }, async () => 'x'),
    { code: 'RESTWELL_INVALID_OPTION' },
  )
  const res = await app.inject('/books')
  t.equal(res.statusCode, 200)
  t.equal((await app.inject('/off')).body, 'off')
})
