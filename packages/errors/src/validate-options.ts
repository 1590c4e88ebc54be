/** Option validation shared by every restwell plugin: one TypeBox schema, one clear message. */
import { Kind, type Static, type TSchema } from '@sinclair/typebox'
import {
  Errors,
  type ValueError,
  type ValueErrorIterator,
  ValueErrorType,
} from '@sinclair/typebox/errors'

/** Keys Fastify itself may put on a plugin's options; never the plugin's concern. */
const FASTIFY_KEYS = new Set(['prefix', 'logLevel', 'logSerializers'])

/** Thrown when a plugin is registered with an option its schema refuses. */
export class OptionsError extends TypeError {
  override readonly name: string = 'OptionsError'
  readonly code: string = 'RESTWELL_INVALID_OPTION'
  /** The option's path, dotted: `limits.max`. */
  readonly option: string

  constructor(plugin: string, option: string, problem: string) {
    super(`${plugin}: option "${option}" ${problem}`)
    this.option = option
  }
}

/** A given value as a message shows it: JSON, cut at 60 characters. */
function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function'
  if (value === undefined) return 'undefined'
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'symbol') {
    return String(value) // NaN and Infinity, which JSON would write as null
  }
  if (value instanceof RegExp) return String(value)
  let json: string
  try {
    json = JSON.stringify(value)
  } catch {
    return 'an object that JSON cannot write' // circular, or holding a bigint
  }
  return json.length > 60 ? `${json.slice(0, 57)}...` : json
}

/**
 * Edit distance of `a` and `b` (optimal string alignment): the fewest insertions, deletions,
 * substitutions and swaps of two adjacent characters that turn one into the other.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, before[j - 2]! + 1)
      }
      row.push(best)
    }
    before = previous
    previous = row
  }
  return previous[b.length]!
}

/** Most edits between a misspelt key and the key it is taken for. */
const MAX_EDITS = 2

/**
 * The known key nearest `key` (case aside), when it is at most two edits away and closer than
 * the key's own length (a one-letter key is not a typo of every short one); the first on a tie.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const given = key.toLowerCase()
  let best: string | undefined
  let bestDistance = Math.min(MAX_EDITS, given.length - 1)
  for (const candidate of known) {
    // Lengths further apart than the bound cannot be within it: skipped without the matrix.
    if (Math.abs(candidate.length - given.length) > bestDistance) continue
    const distance = editDistance(given, candidate.toLowerCase())
    if (distance <= bestDistance && (best === undefined || distance < bestDistance)) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

const quote = (text: string): string => JSON.stringify(text)

/** `a, b or c` (TypeBox makes no union of fewer than two variants). */
function either(parts: readonly string[]): string {
  return `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`
}

/** ` ≥ 1 and ≤ 100`, from a number schema's bounds. */
function bounds(schema: TSchema): string {
  const parts: string[] = []
  if (typeof schema.minimum === 'number') parts.push(`≥ ${schema.minimum}`)
  if (typeof schema.exclusiveMinimum === 'number') parts.push(`> ${schema.exclusiveMinimum}`)
  if (typeof schema.maximum === 'number') parts.push(`≤ ${schema.maximum}`)
  if (typeof schema.exclusiveMaximum === 'number') parts.push(`< ${schema.exclusiveMaximum}`)
  if (typeof schema.multipleOf === 'number') parts.push(`a multiple of ${schema.multipleOf}`)
  return parts.length === 0 ? '' : ` ${parts.join(' and ')}`
}

/** `a string`, `a non-empty array`, `a string of 1 to 32 characters`. */
function sized(noun: string, unit: string, min: unknown, max: unknown): string {
  const article = noun === 'string' ? 'a' : 'an'
  const least = typeof min === 'number' ? min : 0
  if (typeof max === 'number') return `${article} ${noun} of ${least} to ${max} ${unit}s`
  if (least === 1) return `a non-empty ${noun}`
  if (least > 1) return `${article} ${noun} of at least ${least} ${unit}s`
  return `${article} ${noun}`
}

/** What kinds of schema without constraints expect. */
const PLAIN: Readonly<Record<string, string>> = {
  Boolean: 'a boolean',
  Function: 'a function',
  Date: 'a Date',
  Null: 'null',
}

/** What a schema expects, in words: `an integer ≥ 1`, `one of "a", "b"`, `false or an object`. */
function expectation(schema: TSchema): string {
  const kind = String(schema[Kind])
  switch (kind) {
    case 'Literal':
      return JSON.stringify(schema.const)
    case 'Union': {
      const variants = schema.anyOf as TSchema[]
      const each = variants.map(expectation)
      return variants.every((variant) => variant[Kind] === 'Literal')
        ? `one of ${each.join(', ')}`
        : either(each)
    }
    case 'Integer':
      return `an integer${bounds(schema)}`
    case 'Number':
      return `a number${bounds(schema)}`
    case 'String': {
      let text = sized('string', 'character', schema.minLength, schema.maxLength)
      if (typeof schema.pattern === 'string') text += ` matching /${schema.pattern}/`
      if (typeof schema.format === 'string') text += ` in the ${quote(schema.format)} format`
      return text
    }
    case 'Object':
    case 'Record':
      return sized('object', 'key', schema.minProperties, schema.maxProperties)
    case 'Array':
      return `${sized('array', 'item', schema.minItems, schema.maxItems)}${schema.uniqueItems === true ? ' without duplicates' : ''}`
    default:
      return PLAIN[kind] ?? `what its schema (${kind}) allows`
  }
}

/**
 * The error that explains the most: an unknown key first (a misspelt key explains the
 * "required" and type errors that follow from it), else the first.
 */
function pick(errors: ValueErrorIterator): ValueError | undefined {
  let first: ValueError | undefined
  for (const error of errors) {
    if (error.type === ValueErrorType.ObjectAdditionalProperties) return error
    first ??= error
  }
  return first
}

/** Whether a union's variant is a container the value is, so that its errors name a field. */
function containerFor(variant: TSchema, value: unknown): boolean {
  if (Array.isArray(value)) return variant[Kind] === 'Array'
  return (
    typeof value === 'object' &&
    value !== null &&
    (variant[Kind] === 'Object' || variant[Kind] === 'Record')
  )
}

const depth = (path: string): number => path.split('/').length

/**
 * Follows a union error into the variant that fits the value (for an object, the object
 * variant), down to the deepest failing field. A union none of whose variants is a container
 * of the value's shape (`true` for `false | {...}`, `0` for `integer | string`) is the error.
 */
function deepest(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union) return error
  let best: ValueError | undefined
  ;(error.schema.anyOf as TSchema[]).forEach((variant, i) => {
    if (!containerFor(variant, error.value)) return
    // A variant of a union that failed fails too: it has an error.
    const nested = pick(error.errors[i]!)!
    if (best === undefined || depth(nested.path) > depth(best.path)) best = nested
  })
  return best === undefined ? error : deepest(best)
}

/** `/moved/~1v1` (a JSON pointer) → `moved./v1`. */
function dotted(path: string): string {
  return path
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.')
}

/** The message after `option "<path>"`, for one error. */
function problemOf(error: ValueError): string {
  const { schema } = error
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const pattern = Object.keys((schema.patternProperties ?? {}) as object)[0]
    if (pattern !== undefined) return `is not allowed: the keys here must match /${pattern}/`
    const key = dotted(error.path).split('.').at(-1)!
    const known = Object.keys(schema.properties as object)
    const near = nearestKey(key, known)
    if (near !== undefined) return `is not known; did you mean ${quote(near)}?`
    return known.length === 0
      ? 'is not known: no option is accepted here'
      : `is not known; the known ones are ${known.map(quote).join(', ')}`
  }
  if (error.type === ValueErrorType.ObjectRequiredProperty) {
    return `is required: it must be ${expectation(schema)}`
  }
  return `must be ${expectation(schema)} (got ${describe(error.value)})`
}

/**
 * Checks `options` against `schema` and returns them typed. Throws an `OptionsError` naming
 * the deepest bad option (through unions: `rateLimit.max`, not `rateLimit`), what it expects
 * and what was given; an unknown key is named with the known key it is likely a typo of.
 */
export function validateOptions<T extends TSchema>(
  plugin: string,
  schema: T,
  options: unknown,
): Static<T> {
  const given: Record<string, unknown> = {}
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object' || Array.isArray(options)) {
      throw new OptionsError(plugin, '(options)', `must be an object (got ${describe(options)})`)
    }
    for (const [key, value] of Object.entries(options)) {
      if (!FASTIFY_KEYS.has(key)) given[key] = value
    }
  }
  const first = pick(Errors(schema, given))
  if (first !== undefined) {
    const error = deepest(first)
    throw new OptionsError(plugin, dotted(error.path) || '(options)', problemOf(error))
  }
  return given as Static<T>
}
