// Type-level checks of the public API (expect-type), run as a tap test too.
import { expectTypeOf } from 'expect-type'
import Fastify, { type FastifyPluginAsync } from 'fastify'
import { test } from 'tap'
import restwellPatchDefault, {
  applyJsonPatch,
  applyMergePatch,
  type JsonPatchOp,
  type JsonPatchOperation,
  type ParsedPatch,
  type PatchFormat,
  type PatchOptions,
  type PatchRouteConfig,
  type RestwellPatchApi,
  restwellPatch,
} from '../src/index.js'

test('types of the public API', async (t) => {
  expectTypeOf(restwellPatch).toEqualTypeOf<FastifyPluginAsync<PatchOptions>>()
  expectTypeOf(restwellPatchDefault).toEqualTypeOf(restwellPatch)
  expectTypeOf<PatchOptions>().toHaveProperty('status').toEqualTypeOf<200 | 204 | undefined>()
  expectTypeOf<PatchOptions>().toHaveProperty('formats').toEqualTypeOf<PatchFormat[] | undefined>()
  expectTypeOf<PatchOptions>().toHaveProperty('readOnly').toEqualTypeOf<string[] | undefined>()
  expectTypeOf<PatchRouteConfig>()
    .toHaveProperty('schema')
    .toEqualTypeOf<object | false | undefined>()
  expectTypeOf<JsonPatchOp>().toEqualTypeOf<
    'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'
  >()
  expectTypeOf(applyJsonPatch<{ a: number }>).returns.toEqualTypeOf<{ a: number }>()
  expectTypeOf(applyJsonPatch).parameter(1).toEqualTypeOf<readonly JsonPatchOperation[]>()
  expectTypeOf(applyMergePatch<string[]>).returns.toEqualTypeOf<string[]>()
  // @ts-expect-error: an add needs a value
  const bad: JsonPatchOperation = { op: 'add', path: '/a' }
  t.ok(bad)

  const app = Fastify()
  await app.register(restwellPatch, { status: 204, formats: ['merge-patch'] })
  expectTypeOf(app.restwellPatch).toEqualTypeOf<RestwellPatchApi>()
  expectTypeOf(app.restwellPatch.acceptPatch).returns.toEqualTypeOf<string | undefined>()
  app.patch('/x', { config: { patch: { readOnly: ['id'], status: 200 } } }, async (request) => {
    expectTypeOf(request.patch).toEqualTypeOf<ParsedPatch | null>()
    expectTypeOf(request.applyPatch({ id: 1 })).toEqualTypeOf<{ id: number }>()
    if (request.patch?.format === 'json-patch') {
      expectTypeOf(request.patch.operations).toEqualTypeOf<readonly JsonPatchOperation[]>()
    }
    return {}
  })
  app.patch('/y', { config: { patch: false } }, async () => ({}))
  await app.ready()
  t.pass('types check')
})
