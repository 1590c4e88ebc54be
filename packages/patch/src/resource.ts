/** The resource a patch produces: its schema, its read-only fields, and the checks of both. */
import { ErrorCode, type HttpError, httpErrors, validationDetails } from '@restwell/errors'
import type { ValidateFunction } from 'ajv'
import { readOnlyField, show } from './errors.js'
import type { CompiledOperation } from './json-patch.js'
import { hasOwn, isPlainObject, jsonEqual, toJsonForm } from './json.js'
import { formatPointer, isProperPrefix, parsePointer } from './pointer.js'

/** How deep `readOnly: true` is looked for in a schema's nested `properties`. */
const MAX_SCHEMA_DEPTH = 32

/**
 * The pointers of the fields a schema marks `readOnly: true` (JSON Schema 2020-12 §9.4),
 * following `properties` of nested objects; not through `$ref`, `allOf` or array `items`.
 */
export function readOnlyPointers(schema: unknown): string[][] {
  const found: string[][] = []
  const walk = (node: unknown, path: string[]): void => {
    if (!isPlainObject(node) || path.length > MAX_SCHEMA_DEPTH) return
    const properties = node['properties']
    if (!isPlainObject(properties)) return
    for (const key of Object.keys(properties)) {
      const property = properties[key]
      if (isPlainObject(property) && property['readOnly'] === true) found.push([...path, key])
      else walk(property, [...path, key])
    }
  }
  walk(schema, [])
  return found
}

/**
 * Parses the `readOnly` option: a JSON Pointer (`/meta/createdAt`) or a top-level member name
 * (`id`). Returns the pointers, or the first entry that is not a valid pointer.
 */
export function parseReadOnly(list: readonly string[]): string[][] | string {
  const pointers: string[][] = []
  for (const entry of list) {
    const tokens = entry.startsWith('/') ? parsePointer(entry) : [entry]
    if (tokens === undefined || tokens.length === 0) return entry
    pointers.push(tokens)
  }
  return pointers
}

const ABSENT: unique symbol = Symbol('absent')

/** The value at a pointer, or `ABSENT`. */
function lookup(document: unknown, tokens: readonly string[]): unknown {
  let current = document
  for (const token of tokens) {
    if (!isPlainObject(current) || !hasOwn(current, token)) return ABSENT
    current = current[token]
  }
  return current
}

function related(a: readonly string[], b: readonly string[]): boolean {
  return isProperPrefix(a, b) || isProperPrefix(b, a) || formatPointer(a) === formatPointer(b)
}

/**
 * The member of a merge patch that changed the field at `tokens`: the deepest one on the way to
 * it that the patch sets (`meta` for `{"meta": null}`); none when the patch is not an object.
 */
function mergeMember(patch: unknown, tokens: readonly string[]): string[] {
  const reached: string[] = []
  let node = patch
  for (const token of tokens) {
    if (!isPlainObject(node) || !hasOwn(node, token)) break
    reached.push(token)
    node = node[token]
  }
  return reached
}

/** What changed a document: its JSON Patch operations, or its merge patch. */
export type PatchSource =
  | { readonly operations: readonly CompiledOperation[] }
  | { readonly mergePatch: unknown }

/**
 * Throws 422 `READ_ONLY_FIELD` when a read-only field differs between `before` and `after`
 * (added, removed or changed). `details[0].field` points into the request body: the first JSON
 * Patch operation whose `path` (or a move's `from`) touches the field, or the member of a merge
 * patch that set it (`body` for a merge patch that is not an object: it replaced the document).
 */
export function checkReadOnly(
  before: unknown,
  after: unknown,
  pointers: readonly (readonly string[])[],
  source: PatchSource,
): void {
  for (const tokens of pointers) {
    const old = lookup(before, tokens)
    const now = lookup(after, tokens)
    if (old === ABSENT ? now === ABSENT : now !== ABSENT && jsonEqual(old, now)) continue
    const name = formatPointer(tokens)
    let field: string
    let by = ''
    if ('mergePatch' in source) {
      field = `body${formatPointer(mergeMember(source.mergePatch, tokens))}`
      if (!isPlainObject(source.mergePatch)) {
        by = ' (a merge patch that is not an object replaces the whole document)'
      }
    } else {
      const { operations } = source
      const culprit = operations.find(
        (op) =>
          op.op !== 'test' &&
          (related(op.path, tokens) || (op.op === 'move' && related(op.from!, tokens))),
      )
      field = 'body'
      if (culprit !== undefined) {
        const member = related(culprit.path, tokens) ? 'path' : 'from'
        field = `body/${culprit.index}/${member}`
        by = ` (operation ${culprit.index}: ${culprit.op} ${show(culprit.source.path)})`
      }
    }
    throw readOnlyField(`The field ${show(name)} is read-only and cannot be changed${by}`, field)
  }
}

/**
 * A validator as a Fastify validator compiler returns it: `true`/`false` (with `errors`, as an
 * Ajv `ValidateFunction`), or `{ error }` / `{ value }` (Zod's and other type providers'
 * compilers, a Zod schema's `safeParse`). A promise is refused: a patch is applied synchronously.
 */
export interface DocumentValidator {
  (document: unknown): unknown
  errors?: readonly unknown[] | null | undefined
}

/**
 * Throws 422 `PATCH_RESULT_INVALID` with one detail per problem (`resource/<pointer>`) when
 * `validate` refuses `document`.
 */
export function checkResult(validate: DocumentValidator, document: unknown): void {
  const result = validate(document)
  if (result === true) return
  if (result === false) throw resultInvalid(validate.errors ?? [])
  const outcome = (typeof result === 'object' && result !== null ? result : {}) as {
    then?: unknown
    error?: unknown
  }
  if (typeof outcome.then === 'function') {
    throw new TypeError(
      '@restwell/patch: the resource validator returned a promise; a patch is checked synchronously (use a synchronous schema or config.patch.validate)',
    )
  }
  if (outcome.error !== undefined && outcome.error !== null) {
    throw resultInvalid(problemsOf(outcome.error))
  }
}

/**
 * Ajv-shaped problems from a validator's error: Ajv's list, a Fastify validation error's
 * `validation`, a Zod error's `issues` (`path` as an array), else the error's message alone.
 */
function problemsOf(error: unknown): readonly unknown[] {
  if (Array.isArray(error)) return error
  const found = error as { validation?: unknown; issues?: unknown; message?: unknown }
  if (Array.isArray(found.validation)) return found.validation
  if (Array.isArray(found.issues)) {
    return found.issues.map((raw) => {
      const issue = (typeof raw === 'object' && raw !== null ? raw : {}) as {
        path?: unknown
        message?: unknown
        code?: unknown
      }
      // A Standard Schema path segment is a key or `{ key }`.
      const path = Array.isArray(issue.path)
        ? issue.path.map((segment: unknown) =>
            String(isPlainObject(segment) ? segment['key'] : segment),
          )
        : []
      // The issue's own members (an unrecognized-keys issue's `keys`) go as AJV's `params`.
      return {
        instancePath: formatPointer(path),
        message: issue.message,
        keyword: issue.code,
        params: issue,
      }
    })
  }
  return [{ message: typeof found.message === 'string' ? found.message : undefined }]
}

/**
 * The check of a Standard Schema (`~standard`, standardschema.dev: Zod 4, Valibot, ArkType), which
 * is never JSON Schema, as a {@link DocumentValidator}: its own `validate`, its issues as the
 * error. Undefined for a schema without one.
 */
export function standardValidator(schema: object): DocumentValidator | undefined {
  const standard = (schema as { '~standard'?: { validate?: unknown } | null })['~standard']
  const validate = standard?.validate
  if (typeof validate !== 'function') return undefined
  return (document) => {
    const result: unknown = validate.call(standard, document)
    const issues = (result as { issues?: unknown } | null | undefined)?.issues
    // A promise goes back as it is: checkResult refuses it.
    return Array.isArray(issues) ? { error: { issues } } : result
  }
}

/**
 * An Ajv schema check as a {@link DocumentValidator}: the schema describes the response, so it
 * is checked against the document's JSON form (a `Date` as its ISO string); the document itself,
 * handed to the handler, keeps its values.
 */
export function jsonFormValidator(validate: ValidateFunction): DocumentValidator {
  const check: DocumentValidator = (document) => {
    const valid = validate(toJsonForm(document))
    check.errors = validate.errors
    return valid
  }
  return check
}

function resultInvalid(errors: readonly unknown[]): HttpError {
  const details = validationDetails(errors, 'resource')
  return httpErrors.unprocessableEntity(
    'The patched resource does not match its schema; nothing was changed',
    { code: ErrorCode.PATCH_RESULT_INVALID, details },
  )
}

/**
 * The resource schema a route declares for its success response: `response[200]`, else
 * `response['2xx']`, unwrapping `{ content: { 'application/json': { schema } } }`. A schema that
 * is not a plain object (a Zod schema) is returned as it is: only the route's compiler reads it.
 */
export function responseSchemaOf(routeSchema: unknown): object | undefined {
  if (typeof routeSchema !== 'object' || routeSchema === null) return undefined
  const response = (routeSchema as { response?: unknown }).response
  if (!isPlainObject(response)) return undefined
  const schema: unknown = response['200'] ?? response['2xx']
  if (typeof schema !== 'object' || schema === null) return undefined
  if (!isPlainObject(schema)) return schema
  const content = schema['content']
  if (!isPlainObject(content)) return schema
  const json = content['application/json'] ?? Object.values(content)[0]
  return isPlainObject(json) && typeof json['schema'] === 'object' && json['schema'] !== null
    ? json['schema']
    : undefined
}
