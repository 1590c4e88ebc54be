import { spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { test } from 'tap'
import ts from 'typescript'
import { TICK_OBJECT } from '@restwell/core/internal'

const FIXTURE = fileURLToPath(new URL('fixtures/tick-shape.mjs', import.meta.url))
const MODULE = new URL('../src/tick-shape.ts', import.meta.url)

/**
 * The states V8 prints for the feedback of the tick object literal in `process.nextTick` once
 * the fixture has collected garbage with no tick object alive, in a plain Node process that
 * imports core's tick-shape module first (`kept`) or not. Plain: what a loader does before the
 * module (a collection, a hidden class generalized) cannot be undone by it.
 */
function literalFeedback(kept: boolean): { states: string[]; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'restwell-tick-'))
  const module = join(dir, 'tick-shape.mjs')
  const { outputText } = ts.transpileModule(readFileSync(MODULE, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  })
  writeFileSync(module, outputText)
  // V8 prints to the C library's stdout, which can lose its tail in a pipe: a file keeps it all.
  const file = join(dir, 'out.txt')
  const out = openSync(file, 'w')
  try {
    // Through `env -u`: tap's process-info hook adds itself to the NODE_OPTIONS of every child
    // it sees spawned, and would load (with coverage on) before the module.
    const child = spawnSync(
      'env',
      [
        '-u',
        'NODE_OPTIONS',
        process.execPath,
        '--expose-gc',
        '--allow-natives-syntax',
        // compiled on the main thread: no compile job holds the hidden classes in a collection
        '--no-concurrent-recompilation',
        ...(kept ? [`--import=${pathToFileURL(module).href}`] : []),
        FIXTURE,
      ],
      {
        stdio: ['ignore', out, 'pipe'],
        encoding: 'utf8',
        timeout: 60_000,
      },
    )
    const printed = readFileSync(file, 'utf8')
    const states = [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map(
      (match) => match[1] as string,
    )
    return { states, output: `${printed.slice(-2000)}\n${child.stderr}` }
  } finally {
    closeSync(out)
    rmSync(dir, { recursive: true, force: true })
  }
}

// Without the module, the same run must fall into the slow path, or this Node cannot tell.
const bare = literalFeedback(false)
const reproduces = bare.states.includes('MEGAMORPHIC')

test('process.nextTick stays on the fast path after full GCs with no tick alive', {
  skip: reproduces
    ? false
    : `this Node does not lose the hidden classes without the module (${bare.states.join(', ')})`,
}, async (t) => {
  const kept = literalFeedback(true)
  t.equal(kept.states.length, 4, kept.output)
  t.same(
    kept.states.filter((state) => state !== 'MONOMORPHIC'),
    [],
    'each property of the tick object literal keeps one hidden class',
  )
})

test('importing core keeps one process.nextTick tick object', async (t) => {
  // It is taken on the tick after the module is first imported.
  await new Promise<void>((resolve) => setImmediate(resolve))
  const kept = (globalThis as { [TICK_OBJECT]?: object })[TICK_OBJECT]
  t.ok(kept !== undefined && kept !== globalThis)
  t.match(Object.keys(kept as object), ['callback', 'args'])
  t.equal(Object.getOwnPropertySymbols(kept).length, 2, 'its async id and trigger id')
})
