/** JSON values: a safe deep copy, RFC 6902 equality, and a bounded walk for forbidden keys. */
import { formatPointer, FORBIDDEN_TOKENS } from './pointer.js'

/** A JSON object member container (plain or null-prototype object). */
export type JsonObject = Record<string, unknown>

/** True for arrays' siblings that a pointer can enter: plain and null-prototype objects. */
export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Own-member test: inherited properties (`toString`, `constructor`) are never members. */
export const hasOwn: (object: object, key: PropertyKey) => boolean = Object.hasOwn

/**
 * Sets an own data property. `__proto__` is defined as a plain member, never as the prototype,
 * so copying untrusted data cannot change any object's prototype.
 */
export function setMember(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    })
  } else {
    object[key] = value
  }
}

/**
 * Deep copy of the JSON parts of a value: arrays and plain objects are copied, anything else
 * (primitives, and opaque objects such as a `Date` from a database row) is kept as it is.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    const copy: unknown[] = value.slice()
    for (let i = 0; i < copy.length; i++) {
      const item = copy[i]
      if (typeof item === 'object' && item !== null) copy[i] = cloneJson(item)
    }
    return copy as T
  }
  if (!isPlainObject(value)) return value
  return copyMembers(value, undefined) as T
}

/**
 * A copy of an object's members, each deep-copied (`cloneJson`), those named in `skip` left
 * shared for the caller to replace. The spread copies every member in one step; `__proto__`
 * stays a plain member, as the spread defines members rather than assigning them.
 */
export function copyMembers(object: JsonObject, skip: JsonObject | undefined): JsonObject {
  const copy: JsonObject = { ...object }
  for (const key of Object.keys(copy)) {
    const item = copy[key]
    if (typeof item !== 'object' || item === null) continue
    if (skip === undefined || !hasOwn(skip, key)) setMember(copy, key, cloneJson(item))
  }
  return copy
}

/** True for a value a serializer replaces by what its `toJSON` method returns (a `Date`). */
function hasToJson(value: object): value is { toJSON: (key: string) => unknown } {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function'
}

/**
 * The JSON form of a value, as `JSON.stringify` sees it: every object with a `toJSON` method (a
 * `Date`) is replaced by what `toJSON(key)` returns, at any depth. Copy on write: the input is
 * never changed, and a value holding no such object is returned itself.
 */
export function toJsonForm(value: unknown, key: string | number = ''): unknown {
  if (typeof value !== 'object' || value === null) return value
  const current: unknown = hasToJson(value) ? value.toJSON(String(key)) : value
  if (Array.isArray(current)) {
    let copy: unknown[] | undefined
    for (let i = 0; i < current.length; i++) {
      const item: unknown = current[i]
      if (typeof item !== 'object' || item === null) continue
      const form = toJsonForm(item, i)
      if (form === item) continue
      copy ??= current.slice()
      copy[i] = form
    }
    return copy ?? current
  }
  if (!isPlainObject(current)) return current
  let copy: JsonObject | undefined
  for (const member of Object.keys(current)) {
    const item = current[member]
    if (typeof item !== 'object' || item === null) continue
    const form = toJsonForm(item, member)
    if (form === item) continue
    if (copy === undefined) {
      copy = {}
      for (const name of Object.keys(current)) setMember(copy, name, current[name])
    }
    setMember(copy, member, form)
  }
  return copy ?? current
}

function comparable(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || isPlainObject(value)) {
    return value
  }
  return hasToJson(value) ? value.toJSON('') : value
}

/**
 * RFC 6902 §4.6 equality: same type; strings, numbers and literals equal by value; arrays
 * equal element by element; objects with the same members, in any order. An opaque object
 * with `toJSON` (a `Date`) compares as what it serializes to.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const x = comparable(a)
  const y = comparable(b)
  if (x === y) return true
  if (Array.isArray(x)) {
    if (!Array.isArray(y) || x.length !== y.length) return false
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i])) return false
    return true
  }
  if (!isPlainObject(x) || !isPlainObject(y)) return false
  const keys = Object.keys(x)
  if (keys.length !== Object.keys(y).length) return false
  for (const key of keys) {
    if (!hasOwn(y, key) || !jsonEqual(x[key], y[key])) return false
  }
  return true
}

/** Deepest nesting of arrays and objects accepted in a patch value. */
export const MAX_DEPTH = 128

/** What `inspectValue` found wrong, with the JSON Pointer (inside the value) where. */
export type ValueProblem =
  | { kind: 'forbidden'; pointer: string; key: string }
  | { kind: 'depth'; pointer: string }

interface Visit {
  value: unknown
  depth: number
  /** The member name or array index that leads to `value` from its parent. */
  key: string | number
  parent: Visit | undefined
}

function pointerOf(visit: Visit, last?: string): string {
  const tokens: string[] = last === undefined ? [] : [last]
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) {
    tokens.push(String(at.key))
  }
  return formatPointer(tokens.reverse())
}

/**
 * Walks a patch value without recursion and reports the first member named `__proto__`,
 * `constructor` or `prototype`, or a nesting deeper than `MAX_DEPTH`. Linear in the value's size.
 */
export function inspectValue(value: unknown): ValueProblem | undefined {
  const stack: Visit[] = [{ value, depth: 0, key: '', parent: undefined }]
  while (stack.length > 0) {
    const visit = stack.pop()!
    const current = visit.value
    const depth = visit.depth + 1
    if (Array.isArray(current)) {
      if (depth > MAX_DEPTH) return { kind: 'depth', pointer: pointerOf(visit) }
      for (let i = 0; i < current.length; i++) {
        const item: unknown = current[i]
        if (typeof item === 'object' && item !== null) {
          stack.push({ value: item, depth, key: i, parent: visit })
        }
      }
    } else if (isPlainObject(current)) {
      if (depth > MAX_DEPTH) return { kind: 'depth', pointer: pointerOf(visit) }
      for (const key of Object.keys(current)) {
        if (FORBIDDEN_TOKENS.has(key))
          return { kind: 'forbidden', pointer: pointerOf(visit, key), key }
        // Only containers are visited: a primitive has no members and no depth to check.
        const item = current[key]
        if (typeof item === 'object' && item !== null) {
          stack.push({ value: item, depth, key, parent: visit })
        }
      }
    }
  }
  return undefined
}
