/** JSON Patch (RFC 6902): all six operations, atomic, never mutating its inputs. */
import type { HttpError } from '@restwell/errors'
import { forbiddenPath, invalidPatch, show, targetMissing, testFailed } from './errors.js'
import { cloneJson, hasOwn, inspectValue, isPlainObject, jsonEqual, setMember } from './json.js'
import {
  arrayIndex,
  FORBIDDEN_TOKENS,
  formatPointer,
  isProperPrefix,
  parsePointer,
} from './pointer.js'

/** One RFC 6902 operation. Members other than these are ignored (RFC 6902 §4). */
export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string }
  | { op: 'test'; path: string; value: unknown }

/** The name of an RFC 6902 operation. */
export type JsonPatchOp = JsonPatchOperation['op']

const OPS: ReadonlySet<string> = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test'])
const WITH_VALUE: ReadonlySet<string> = new Set(['add', 'replace', 'test'])
const WITH_FROM: ReadonlySet<string> = new Set(['move', 'copy'])

/** An operation checked and with its pointers parsed, ready to apply. */
export interface CompiledOperation {
  readonly index: number
  readonly op: JsonPatchOp
  readonly path: readonly string[]
  readonly from: readonly string[] | undefined
  readonly value: unknown
  readonly source: JsonPatchOperation
}

function label(index: number, op: string, path: string): string {
  return `Operation ${index} (${op} ${show(path)})`
}

function pointerMember(
  operation: Record<string, unknown>,
  member: 'path' | 'from',
  index: number,
  op: string,
): string[] {
  const field = `body/${index}/${member}`
  const raw = operation[member]
  if (!hasOwn(operation, member)) {
    throw invalidPatch(`Operation ${index} (${op}) has no "${member}" member`, field)
  }
  if (typeof raw !== 'string') {
    throw invalidPatch(`Operation ${index} (${op}): "${member}" must be a string`, field)
  }
  const tokens = parsePointer(raw)
  if (tokens === undefined) {
    throw invalidPatch(
      `${label(index, op, raw)}: "${member}" is not a JSON Pointer (RFC 6901: it starts with "/" and escapes "~" as "~0", "/" as "~1")`,
      field,
    )
  }
  for (const token of tokens) {
    if (FORBIDDEN_TOKENS.has(token)) {
      throw forbiddenPath(
        `${label(index, op, raw)}: "${member}" reaches "${token}", which a patch may not touch`,
        field,
      )
    }
  }
  return tokens
}

/**
 * Checks a JSON Patch document and parses its pointers, without looking at any target
 * document: 400 `INVALID_PATCH` for a malformed document (not an array, an operation without
 * `op` or `path`, an unknown `op`, a missing `value` or `from`, a bad pointer, a move into its
 * own child, removing the whole document), 422 `FORBIDDEN_PATH` for a path or value member that
 * reaches `__proto__`, `constructor` or `prototype`.
 */
export function compileJsonPatch(operations: unknown): CompiledOperation[] {
  if (!Array.isArray(operations)) {
    throw invalidPatch('A JSON Patch document must be an array of operations', 'body')
  }
  const compiled: CompiledOperation[] = []
  for (let index = 0; index < operations.length; index++) {
    const operation: unknown = operations[index]
    if (!isPlainObject(operation)) {
      throw invalidPatch(`Operation ${index} must be an object`, `body/${index}`)
    }
    const op = operation['op']
    if (!hasOwn(operation, 'op') || typeof op !== 'string') {
      throw invalidPatch(`Operation ${index} needs an "op" string`, `body/${index}/op`)
    }
    if (!OPS.has(op)) {
      throw invalidPatch(
        `Operation ${index} has an unknown op ${show(op)}: expected add, remove, replace, move, copy or test`,
        `body/${index}/op`,
      )
    }
    const path = pointerMember(operation, 'path', index, op)
    let from: string[] | undefined
    if (WITH_FROM.has(op)) {
      from = pointerMember(operation, 'from', index, op)
      if (op === 'move' && isProperPrefix(from, path)) {
        throw invalidPatch(
          `${label(index, op, operation['path'] as string)}: a value cannot be moved into one of its own children`,
          `body/${index}/from`,
        )
      }
    }
    if (op === 'remove' && path.length === 0) {
      throw invalidPatch(
        `Operation ${index} (remove ""): the whole document cannot be removed`,
        `body/${index}/path`,
      )
    }
    let value: unknown
    if (WITH_VALUE.has(op)) {
      if (!hasOwn(operation, 'value')) {
        throw invalidPatch(
          `${label(index, op, operation['path'] as string)} has no "value" member`,
          `body/${index}/value`,
        )
      }
      value = operation['value']
      const problem = inspectValue(value)
      if (problem?.kind === 'forbidden') {
        throw forbiddenPath(
          `${label(index, op, operation['path'] as string)}: the value has a member named "${problem.key}", which a patch may not set`,
          `body/${index}/value${problem.pointer}`,
        )
      }
      if (problem?.kind === 'depth') {
        throw invalidPatch(
          `${label(index, op, operation['path'] as string)}: the value is nested too deeply`,
          `body/${index}/value${problem.pointer}`,
        )
      }
    }
    compiled.push({
      index,
      op: op as JsonPatchOp,
      path,
      from,
      value,
      source: operation as unknown as JsonPatchOperation,
    })
  }
  return compiled
}

/** The document being patched, boxed so `add`/`replace` at `""` can swap the root. */
interface Box {
  root: unknown
}

function missing(operation: CompiledOperation, member: 'path' | 'from', reason: string): HttpError {
  return targetMissing(
    `${label(operation.index, operation.op, operation.source.path)}: ${reason}`,
    `body/${operation.index}/${member}`,
  )
}

/** The value at `tokens[0..end)`; throws 409 `PATCH_TARGET_MISSING` when it does not exist. */
function valueAt(
  box: Box,
  tokens: readonly string[],
  end: number,
  operation: CompiledOperation,
  member: 'path' | 'from',
): unknown {
  let current = box.root
  for (let i = 0; i < end; i++) {
    const token = tokens[i]!
    if (Array.isArray(current)) {
      current = current[elementIndex(current, token, false, operation, member)]
    } else if (isPlainObject(current) && hasOwn(current, token)) {
      current = current[token]
    } else {
      throw missing(
        operation,
        member,
        `${show(formatPointer(tokens.slice(0, i + 1)))} does not exist`,
      )
    }
  }
  return current
}

/**
 * The index a token names in `array`: an existing element, or with `insert` also the end
 * (`-` or the length). Anything else is 409 `PATCH_TARGET_MISSING`.
 */
function elementIndex(
  array: readonly unknown[],
  token: string,
  insert: boolean,
  operation: CompiledOperation,
  member: 'path' | 'from',
): number {
  if (token === '-') {
    if (insert) return array.length
    throw missing(operation, member, '"-" names the element after the last, which does not exist')
  }
  const index = arrayIndex(token)
  if (index === -1) {
    throw missing(
      operation,
      member,
      `${show(token)} is not an array index (RFC 6901: digits, no leading zero, or "-")`,
    )
  }
  if (index > array.length || (!insert && index === array.length)) {
    throw missing(
      operation,
      member,
      `index ${index} is out of bounds (the array has ${array.length} elements)`,
    )
  }
  return index
}

/** The container and last token of a non-root location; the container must exist. */
function parentOf(
  box: Box,
  tokens: readonly string[],
  operation: CompiledOperation,
  member: 'path' | 'from',
): { parent: unknown; key: string } {
  const parent = valueAt(box, tokens, tokens.length - 1, operation, member)
  return { parent, key: tokens[tokens.length - 1]! }
}

function add(
  box: Box,
  tokens: readonly string[],
  value: unknown,
  operation: CompiledOperation,
): void {
  if (tokens.length === 0) {
    box.root = value
    return
  }
  const { parent, key } = parentOf(box, tokens, operation, 'path')
  if (Array.isArray(parent)) {
    parent.splice(elementIndex(parent, key, true, operation, 'path'), 0, value)
  } else if (isPlainObject(parent)) {
    setMember(parent, key, value)
  } else {
    throw missing(
      operation,
      'path',
      `${show(formatPointer(tokens.slice(0, -1)))} is not an object or array`,
    )
  }
}

/** Removes and returns the value at a non-root location that must exist. */
function remove(
  box: Box,
  tokens: readonly string[],
  operation: CompiledOperation,
  member: 'path' | 'from',
): unknown {
  const { parent, key } = parentOf(box, tokens, operation, member)
  if (Array.isArray(parent)) {
    return parent.splice(elementIndex(parent, key, false, operation, member), 1)[0]
  }
  if (isPlainObject(parent) && hasOwn(parent, key)) {
    const value = parent[key]
    delete parent[key]
    return value
  }
  throw missing(operation, member, `${show(formatPointer(tokens))} does not exist`)
}

function replace(
  box: Box,
  tokens: readonly string[],
  value: unknown,
  operation: CompiledOperation,
): void {
  if (tokens.length === 0) {
    box.root = value
    return
  }
  const { parent, key } = parentOf(box, tokens, operation, 'path')
  if (Array.isArray(parent)) {
    parent[elementIndex(parent, key, false, operation, 'path')] = value
  } else if (isPlainObject(parent) && hasOwn(parent, key)) {
    parent[key] = value
  } else {
    throw missing(operation, 'path', `${show(formatPointer(tokens))} does not exist`)
  }
}

function samePointer(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((token, i) => token === b[i])
}

/** Applies checked operations to a private copy of `document` and returns that copy. */
export function applyCompiled(
  document: unknown,
  operations: readonly CompiledOperation[],
): unknown {
  const box: Box = { root: cloneJson(document) }
  for (const operation of operations) {
    const { path } = operation
    switch (operation.op) {
      case 'add':
        add(box, path, cloneJson(operation.value), operation)
        break
      case 'remove':
        remove(box, path, operation, 'path')
        break
      case 'replace':
        replace(box, path, cloneJson(operation.value), operation)
        break
      case 'move': {
        const from = operation.from!
        if (samePointer(from, path)) {
          valueAt(box, from, from.length, operation, 'from')
        } else {
          // `from` is not the root here: a root `from` is a proper prefix of any other path,
          // which compileJsonPatch refuses, and `path` "" too is the branch above.
          add(box, path, remove(box, from, operation, 'from'), operation)
        }
        break
      }
      case 'copy': {
        const from = operation.from!
        add(box, path, cloneJson(valueAt(box, from, from.length, operation, 'from')), operation)
        break
      }
      case 'test': {
        const actual = valueAt(box, path, path.length, operation, 'path')
        if (!jsonEqual(actual, operation.value)) {
          throw testFailed(
            `${label(operation.index, 'test', operation.source.path)}: the current value differs from the expected one`,
            `body/${operation.index}/path`,
          )
        }
        break
      }
    }
  }
  return box.root
}

/**
 * Applies a JSON Patch (RFC 6902) and returns the patched document as a new value; neither
 * `document` nor `operations` is changed, and the result shares no object with either.
 * Atomic: when any operation fails, an `HttpError` is thrown and nothing is returned.
 *
 * - 400 `INVALID_PATCH`: a malformed patch document (checked before any operation runs).
 * - 409 `PATCH_TARGET_MISSING`: a `path` or `from` that does not exist in this document.
 * - 409 `PATCH_TEST_FAILED`: a `test` operation found another value.
 * - 422 `FORBIDDEN_PATH`: a path or value member that reaches `__proto__`, `constructor`, `prototype`.
 *
 * Each error's `details[0].field` names the operation and member: `body/2/path`.
 *
 * @param document The current document (any JSON value; opaque objects such as `Date` are kept).
 * @param operations The JSON Patch document: an array of operations.
 * @example
 * applyJsonPatch({ title: 'Dune' }, [{ op: 'replace', path: '/title', value: 'Emma' }])
 * // → { title: 'Emma' }
 */
export function applyJsonPatch<T>(document: T, operations: readonly JsonPatchOperation[]): T {
  return applyCompiled(document, compileJsonPatch(operations)) as T
}
