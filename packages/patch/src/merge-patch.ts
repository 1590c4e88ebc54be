/** JSON Merge Patch (RFC 7396), never mutating its inputs. */
import { forbiddenPath, invalidPatch } from './errors.js'
import {
  cloneJson,
  copyMembers,
  hasOwn,
  inspectValue,
  isPlainObject,
  type JsonObject,
  setMember,
} from './json.js'

/**
 * Checks a merge patch before it is applied: every JSON value is a merge patch, but a member
 * named `__proto__`, `constructor` or `prototype` is 422 `FORBIDDEN_PATH`, and nesting deeper
 * than 128 levels is 400 `INVALID_PATCH`. `details[0].field` is `body/<pointer>`.
 */
export function checkMergePatch(patch: unknown): void {
  const problem = inspectValue(patch)
  if (problem?.kind === 'forbidden') {
    throw forbiddenPath(
      `The merge patch has a member named "${problem.key}", which a patch may not set`,
      `body${problem.pointer}`,
    )
  }
  if (problem?.kind === 'depth') {
    throw invalidPatch('The merge patch is nested too deeply', `body${problem.pointer}`)
  }
}

/** RFC 7396 §2 MergePatch(Target, Patch), building new objects instead of changing Target. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return cloneJson(patch)
  const base = isPlainObject(target) ? target : undefined
  const keys = Object.keys(patch)
  // A member removed is left out of a new object rather than deleted from a copy: `delete`
  // would turn the copy into a slow dictionary-mode object for the serializer.
  if (base !== undefined && keys.some((key) => patch[key] === null)) return rebuilt(base, patch)
  const result = base === undefined ? {} : copyMembers(base, patch)
  for (const key of keys) {
    const value = patch[key]
    if (value !== null) {
      setMember(
        result,
        key,
        mergePatch(base !== undefined && hasOwn(base, key) ? base[key] : undefined, value),
      )
    }
  }
  return result
}

/** MergePatch for a patch that removes members: the result is built member by member. */
function rebuilt(base: JsonObject, patch: JsonObject): JsonObject {
  const result: JsonObject = {}
  for (const key of Object.keys(base)) {
    if (!hasOwn(patch, key)) setMember(result, key, cloneJson(base[key]))
    else if (patch[key] !== null) setMember(result, key, mergePatch(base[key], patch[key]))
  }
  for (const key of Object.keys(patch)) {
    if (!hasOwn(base, key) && patch[key] !== null)
      setMember(result, key, mergePatch(undefined, patch[key]))
  }
  return result
}

/**
 * Applies a JSON Merge Patch (RFC 7396) and returns the result as a new value; neither input
 * is changed and the result shares no object with either. An object patch merges member by
 * member (`null` removes a member); any other patch replaces the whole document.
 *
 * - 422 `FORBIDDEN_PATH`: a member named `__proto__`, `constructor` or `prototype`.
 * - 400 `INVALID_PATCH`: a patch nested deeper than 128 levels.
 *
 * @param document The current document.
 * @param patch The merge patch document.
 * @example
 * applyMergePatch({ title: 'Dune', year: 1965 }, { year: null, author: 'Herbert' })
 * // → { title: 'Dune', author: 'Herbert' }
 */
export function applyMergePatch<T>(document: T, patch: unknown): T {
  checkMergePatch(patch)
  return mergePatch(document, patch) as T
}
