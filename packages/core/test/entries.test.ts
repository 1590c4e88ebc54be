/**
 * The two entry points: `@restwell/core`, what a plugin author needs, each export documented
 * (`@param` and `@example` for a function), and `@restwell/core/internal`, the rest.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'
import ts from 'typescript'
import * as publicEntry from '../src/index.js'
import * as internalEntry from '../src/internal.js'

const PUBLIC_SOURCE = fileURLToPath(new URL('../src/index.ts', import.meta.url))

/** The public entry's exports as the compiler sees them: each name and its declarations. */
function publicExports(): { name: string; declarations: ts.Declaration[] }[] {
  const program = ts.createProgram([PUBLIC_SOURCE], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
  })
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(PUBLIC_SOURCE) as ts.SourceFile
  const module = checker.getSymbolAtLocation(source) as ts.Symbol
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
    return { name: symbol.name, declarations: target.declarations ?? [] }
  })
}

/** The JSDoc of a declaration (of its statement, for a variable), and its tags. */
function docOf(declaration: ts.Declaration): { text: string; tags: string[] } {
  const holder = ts.isVariableDeclaration(declaration)
    ? declaration.parent.parent
    : (declaration as ts.HasJSDoc)
  const docs = ts.getJSDocCommentsAndTags(holder).filter(ts.isJSDoc)
  const doc = docs.at(-1)
  return {
    text: typeof doc?.comment === 'string' ? doc.comment : '',
    tags: (doc?.tags ?? []).map((tag) => tag.tagName.text),
  }
}

test('the public entry: the values a plugin author calls', async (t) => {
  t.same(Object.keys(publicEntry).sort(), [
    'RegistrationError',
    'apiVersionsOf',
    'appendLink',
    'appendVary',
    'authenticates',
    'bodyBytesOf',
    'bodyStep',
    'conventionPlugin',
    'defineConvention',
    'mediaTypeOf',
    'mergeVary',
    'optionNaming',
    'pageOf',
    'representationOf',
    'routeName',
  ])
})

test('no name is exported by both entries', async (t) => {
  const internal = new Set(Object.keys(internalEntry))
  t.same(
    Object.keys(publicEntry).filter((name) => internal.has(name)),
    [],
  )
  t.ok(internal.has('installPipeline'), 'the pipeline is internal')
})

test('every public export has JSDoc; a function its @param for each parameter and an @example', async (t) => {
  const exports = publicExports()
  t.ok(exports.length >= 30 && exports.length <= 40, `${exports.length} names, about 30 to 40`)
  const missing: string[] = []
  for (const { name, declarations } of exports) {
    const declaration = declarations[0]
    if (declaration === undefined) {
      missing.push(`${name}: no declaration`)
      continue
    }
    const { text, tags } = docOf(declaration)
    if (text.trim() === '') missing.push(`${name}: no JSDoc`)
    const isFunction = ts.isFunctionDeclaration(declaration)
    if ((isFunction || ts.isClassDeclaration(declaration)) && !tags.includes('example')) {
      missing.push(`${name}: no @example`)
    }
    const params = isFunction ? declaration.parameters.length : 0
    const documented = tags.filter((tag) => tag === 'param').length
    if (documented < params) missing.push(`${name}: ${documented} @param of ${params}`)
  }
  t.same(missing, [])
})

test('importing the public entry alone keeps the tick object, as the whole package did', async (t) => {
  const script = `await import(${JSON.stringify(PUBLIC_SOURCE)}); setImmediate(() => console.log(typeof globalThis[Symbol.for('restwell.tickObject')]))`
  // Through `env -u`: tap's process-info hook would load itself into the child first.
  const child = spawnSync(
    'env',
    [
      '-u',
      'NODE_OPTIONS',
      process.execPath,
      '--conditions=restwell-source',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ],
    { encoding: 'utf8', cwd: fileURLToPath(new URL('..', import.meta.url)) },
  )
  t.equal(child.stderr, '')
  t.equal(child.stdout.trim(), 'object')
})

test('the README names every public export, and only those', async (t) => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const api = readme.slice(
    readme.indexOf('\n## API'),
    readme.indexOf('\n## ', readme.indexOf('\n## API') + 1),
  )
  const named = new Set([...api.matchAll(/^\| `([A-Za-z]+)/gm)].map((match) => match[1]))
  const names = publicExports().map(({ name }) => name)
  t.same(
    names.filter((name) => !named.has(name)),
    [],
    'each public name has a row',
  )
  t.same(
    [...named].filter((name) => !names.includes(name as string)),
    [],
    'no row names an internal export',
  )
})
