import { expectTypeOf } from 'expect-type'
import Fastify, { type FastifyPluginAsync, type FastifyReply } from 'fastify'
import { test } from 'tap'
import restwellSoftDeleteDefault, {
  type DeletedFields,
  type Inclusion,
  markDeleted,
  type RouteSoftDeleteConfig,
  restore,
  restwellSoftDelete,
  type SoftDeleteOptions,
  type SoftDeleteRequest,
} from '../src/index.js'

test('types of options, decorators, helpers and route config', async (t) => {
  expectTypeOf(restwellSoftDelete).toEqualTypeOf<FastifyPluginAsync<SoftDeleteOptions>>()
  expectTypeOf(restwellSoftDeleteDefault).toEqualTypeOf(restwellSoftDelete)
  expectTypeOf<SoftDeleteOptions>().toEqualTypeOf<{
    mode?: 'soft' | 'hard'
    gone?: boolean
    param?: string
    includeParam?: string | false
    filterArrays?: boolean
  }>()
  expectTypeOf<RouteSoftDeleteConfig>().toEqualTypeOf<{
    mode?: 'soft' | 'hard'
    gone?: boolean
    filterArrays?: boolean
  }>()
  expectTypeOf<Inclusion>().toEqualTypeOf<'active' | 'all' | 'deleted'>()
  expectTypeOf<SoftDeleteRequest>().toEqualTypeOf<{ include: Inclusion; restore: boolean }>()
  expectTypeOf(markDeleted({ id: 1 })).toEqualTypeOf<{ id: number } & DeletedFields>()
  expectTypeOf(restore({ id: 1, deleted: true as const, deletedAt: 'x' })).toEqualTypeOf<{
    id: number
  }>()

  const app = Fastify()
  await app.register(restwellSoftDelete, { gone: true })
  app.delete('/books/:id', { config: { softDelete: { mode: 'soft' } } }, async (request, reply) => {
    expectTypeOf(request.softDelete).toEqualTypeOf<SoftDeleteRequest | null>()
    expectTypeOf(reply.softDeleted({ id: 1 })).toEqualTypeOf<FastifyReply>()
    expectTypeOf(reply.hardDeleted).returns.toEqualTypeOf<FastifyReply>()
    expectTypeOf(reply.restored).parameter(0).toEqualTypeOf<object>()
    return markDeleted({ id: 1 })
  })
  app.get('/off', { config: { softDelete: false } }, async () => 'off')
  t.throws(
    () =>
      // @ts-expect-error mode is soft or hard
      app.get('/bad', { config: { softDelete: { mode: 'sometimes' } } }, async () => 'x'),
    { code: 'RESTWELL_INVALID_OPTION' },
  )
  const res = await app.inject({ method: 'DELETE', url: '/books/1' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().deleted, true)
})
