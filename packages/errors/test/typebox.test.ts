/** `@restwell/errors/typebox`: the TypeBox the built packages load, builder and errors in one module. */
import { readdirSync, readFileSync } from 'node:fs'
import { Kind, OptionalKind, Type as OwnType } from '@sinclair/typebox'
import { test } from 'tap'
import * as bundled from '../src/typebox.js'
import { Errors, Kind as BundledKind, Type, ValueErrorType } from '../src/typebox.js'

test('the type builder and the error iterator, interchangeable with TypeBox itself', async (t) => {
  const schema = Type.Object({ max: Type.Integer({ minimum: 1 }) }, { additionalProperties: false })
  t.equal(BundledKind, Kind, 'the same Symbol.for keys')
  t.equal(schema[Kind], 'Object')
  const [first] = [...Errors(schema, { max: 0 })]
  t.equal(first?.type, ValueErrorType.IntegerMinimum)
  t.equal(first?.path, '/max')
  const mixed = OwnType.Object({ inner: schema })
  t.same([...Errors(mixed, { inner: { max: 2 } })], [], "an app's own TypeBox composes it")
})

/** Every `.ts` file under each package's `src/`. */
function sources(): { file: string; text: string }[] {
  const packages = new URL('../../', import.meta.url)
  const out: { file: string; text: string }[] = []
  for (const pkg of readdirSync(packages)) {
    const src = new URL(`${pkg}/src/`, packages)
    let entries: string[]
    try {
      entries = readdirSync(src, { recursive: true }) as string[]
    } catch {
      continue // a folder without sources
    }
    for (const entry of entries.filter((e) => e.endsWith('.ts'))) {
      out.push({ file: `${pkg}/src/${entry}`, text: readFileSync(new URL(entry, src), 'utf8') })
    }
  }
  return out
}

test('the module holds every builder and name the packages use at run time', async (t) => {
  const files = sources()
  t.ok(files.length > 50, 'the packages are found')
  for (const { file, text } of files) {
    if (file === 'errors/src/typebox.ts') continue
    for (const [, builder] of text.matchAll(/\bType\.([A-Za-z]+)\b/g)) {
      t.ok(builder! in Type, `${file}: Type.${builder} is bundled`)
    }
    for (const [, names] of text.matchAll(
      /import \{([^}]*)\} from '@sinclair\/typebox(?:\/errors)?'/g,
    )) {
      for (const name of names!.split(',').map((n) => n.trim())) {
        if (name === '' || name.startsWith('type ')) continue
        t.ok(name in bundled, `${file}: ${name} is bundled`)
      }
    }
  }
  t.equal(Type.Optional(Type.String())[OptionalKind], 'Optional')
})
