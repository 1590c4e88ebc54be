/**
 * `pnpm bench:instructions`' arithmetic, on a made-up callgrind file and perf map: self costs
 * per caller chain, JIT addresses resolved, native work charged to its JavaScript caller's
 * layer, the tick-object slow path, GC and the compiler apart. Valgrind runs only in the bench.
 */
import { test } from 'tap'
// @ts-expect-error: a plain .mjs script, without declarations
import { chargeByLayer, LAYERS, parseCallgrind, perfMapResolver } from '../bench/instructions.mjs'

interface Charged {
  total: number
  layers: Record<string, number>
  top: [string, number][]
}

// Functions named with `--separate-callers`: the function, then its callers, `'`-separated.
const CALLGRIND = [
  'events: Ir',
  'fn=(1) 0x1010',
  '1 400',
  'cfn=(2) Builtins_LoadIC',
  'calls=1 0',
  '1 999',
  "fn=(2) Builtins_LoadIC'0x1010",
  '+2 200',
  "fn=(3) v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral'Builtins_CEntry'0x2010",
  '1 300',
  "fn=(4) v8::internal::JSObject::MigrateToMap'v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral'Builtins_CEntry",
  '1 100',
  'fn=(5) v8::internal::Scavenger::ScavengePage',
  '1 50',
  'fn=(6) v8::internal::compiler::GraphReducer::ReduceTop()',
  '1 1000',
  'fn=(7) llhttp__internal_execute',
  '1 60',
  'fn=(8) 0x3010',
  '* 80',
  "fn=(9) Builtins_RegExpExec'0x4010'0x5010",
  '1 40',
  'fn=(10) 0x6010',
  '1 20',
  // the same runtime path, from an object literal of restwell's own: restwell's
  "fn=(11) v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral'Builtins_CEntry'0x1020",
  '1 30',
  'fn=(1)',
  '3 100',
  'totals: 3349',
].join('\n')

const PERF_MAP = [
  '1000 100 JS:*handler file:///app/packages/conditional/dist/index.mjs:10:2',
  '2000 100 JS:*nextTick node:internal/process/task_queues:103:18',
  '3000 100 JS:*routeHandler file:///app/node_modules/.pnpm/fastify@5.12.8/node_modules/fastify/lib/route.js:465:25',
  '4000 100 RegExp:[^\\t\\x20-\\x7e]',
  '5000 100 JS:*item file:///app/test/bench/servers/node.mjs:197:20',
  '6000 100 JS:~writev node:internal/stream_base_commons:123:23',
  '',
].join('\n')

test('self costs per caller chain; a call line is the callee inclusive cost, not the caller own', async (t) => {
  const functions: { chain: string[]; cost: number }[] = parseCallgrind(CALLGRIND)
  const byHead = Object.fromEntries(functions.map((f) => [f.chain.join(' < '), f.cost]))
  t.equal(byHead['0x1010'], 500, 'the 999 of the call is left out; a later fn=(1) block adds')
  t.equal(byHead['Builtins_LoadIC < 0x1010'], 200)
  t.equal(byHead['0x3010'], 80, 'a `*` position line counts')
  t.equal(
    functions.reduce((sum, f) => sum + f.cost, 0),
    2380,
  )
})

test('JIT addresses resolve through the perf map; anything else stays unresolved', async (t) => {
  const resolve = perfMapResolver(PERF_MAP)
  t.match(resolve('0x1010'), /packages\/conditional/)
  t.match(resolve('0x1000'), /packages\/conditional/, 'the first byte')
  t.equal(resolve('0x1100'), undefined, 'one past the end')
  t.equal(resolve('0x0fff'), undefined, 'before the first')
  t.equal(resolve('0x7000'), undefined, 'after the last')
  t.equal(resolve('Builtins_LoadIC'), undefined)
})

test('where V8 reused freed code space, the later perf map entry wins', async (t) => {
  const resolve = perfMapResolver(
    [
      '7000 100 JS:*old node:a:1:1',
      '7040 20 JS:*inside node:b:1:1',
      '8000 10 JS:*first node:c:1:1',
      '8010 10 JS:*second node:d:1:1',
      '7ff8 20 JS:*over node:e:1:1',
      '',
    ].join('\n'),
  )
  t.match(resolve('0x7010'), /old/, 'before the newer entry')
  t.match(resolve('0x7045'), /inside/, 'inside the newer entry')
  t.match(resolve('0x7070'), /old/, 'after it, the older entry again')
  t.match(resolve('0x7ffa'), /over/)
  t.match(resolve('0x8005'), /over/, 'an entry covering one older entry and part of another')
  t.match(resolve('0x8015'), /over/)
  t.match(resolve('0x801a'), /second/, 'the part of an older entry it leaves')
  t.equal(resolve('0x8020'), undefined, 'past both, in the gap')
})

test('native work is charged to the layer of its JavaScript caller, per request', async (t) => {
  const charged: Charged = chargeByLayer(parseCallgrind(CALLGRIND), perfMapResolver(PERF_MAP), 10)
  t.same(charged.layers, {
    [LAYERS.restwell]: 73,
    [LAYERS.literal]: 40,
    [LAYERS.gc]: 5,
    [LAYERS.compiler]: 100,
    [LAYERS.native]: 6,
    [LAYERS.fastify]: 8,
    [LAYERS.routes]: 4,
    [LAYERS.node]: 2,
  })
  t.equal(charged.total, 138, 'the compiler apart')
  t.same(charged.top[0], ['JS:*handler file:///app/packages/conditional/dist/index.mjs:10:2', 73])
  t.match(charged.top[1]?.[0], /routeHandler/)
  t.match(
    charged.top[2]?.[0],
    /bench\/servers\/node\.mjs/,
    'a regular expression charges its caller',
  )
})
