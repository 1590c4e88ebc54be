/**
 * The README's example type-checks under `strict`: its code block, with the app's own functions
 * declared, is compiled in place (as a module of this package) with the repository's options.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'
import ts from 'typescript'

const README = fileURLToPath(new URL('../README.md', import.meta.url))
const CONFIG = fileURLToPath(new URL('../../../tsconfig.base.json', import.meta.url))
/** Where the example is compiled from: a file of this package that is never written. */
const EXAMPLE = fileURLToPath(new URL('./readme-example.mts', import.meta.url))

/** What the example calls but the app writes, declared as an app would have them. */
const APP = `
import type { FastifyRequest } from 'fastify'
interface Book { id: string; title: string; version: number; updatedAt: Date }
declare function listBooks(): Promise<Book[]>
declare function findBook(id: string): Promise<Book | undefined>
declare function findBookMeta(id: string): Promise<Pick<Book, 'version' | 'updatedAt'> | undefined>
declare function replaceItem(request: FastifyRequest<{ Params: { id: string } }>): Promise<Book>
declare function deleteItem(request: FastifyRequest<{ Params: { id: string } }>): Promise<void>
`

/** The first TypeScript code block of a Markdown text. */
function firstTsBlock(markdown: string): string {
  const start = markdown.indexOf('```ts\n')
  const end = markdown.indexOf('\n```', start + 6)
  return markdown.slice(start + 6, end)
}

const { options } = ts.parseJsonConfigFileContent(
  ts.readConfigFile(CONFIG, ts.sys.readFile).config,
  ts.sys,
  fileURLToPath(new URL('.', `file://${CONFIG}`)),
)
/** The last program: the next one reuses what did not change (Fastify's declarations). */
let previous: ts.Program | undefined

/** The diagnostics of `source` compiled at `EXAMPLE`, as text. */
function typeErrors(source: string): string[] {
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile
  host.getSourceFile = (name, language, ...rest) =>
    name === EXAMPLE
      ? ts.createSourceFile(name, source, language)
      : getSourceFile.call(host, name, language, ...rest)
  const fileExists = host.fileExists
  host.fileExists = (name) => name === EXAMPLE || fileExists.call(host, name)
  const program = ts.createProgram({ rootNames: [EXAMPLE], options, host, oldProgram: previous })
  previous = program
  const file = program.getSourceFile(EXAMPLE) as ts.SourceFile
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map(
    (d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  )
}

test("the README's example passes tsc --strict", async (t) => {
  const example = firstTsBlock(readFileSync(README, 'utf8'))
  t.match(example, /getValidator: defineValidator<Item>\(async \(request\) =>/)
  t.same(typeErrors(`${example}\n${APP}`), [])
  // The check sees what strict refuses: the request of a getValidator left untyped.
  const untyped = example.replace('defineValidator<Item>(', '(')
  t.match(typeErrors(`${untyped}\n${APP}`), [/Parameter 'request' implicitly has an 'any' type/])
})
