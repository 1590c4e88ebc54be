/** `?<field>=<value>` filters: what a field accepts, read from its JSON schema, and coercion. */

/** How one filter field's raw query value is coerced. */
export interface FilterSpec {
  type: 'string' | 'integer' | 'number' | 'boolean'
  /** The allowed values (from `enum`, `const` or a union of literals), if restricted. */
  values?: readonly (string | number | boolean)[]
  /** A list field: the parameter may repeat (`?tag=a&tag=b`). */
  array: boolean
}

/** Most values a repeated list filter may carry. */
export const MAX_FILTER_VALUES = 100

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean'])

type Literal = string | number | boolean

function isLiteral(value: unknown): value is Literal {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
}

function schemaType(schema: Record<string, unknown>): string | undefined {
  const type = schema.type
  if (typeof type === 'string') return type
  if (Array.isArray(type))
    return type.find((t): t is string => typeof t === 'string' && t !== 'null')
  return undefined
}

function literalsOf(schema: Record<string, unknown>): Literal[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.filter(isLiteral)
  if (isLiteral(schema.const)) return [schema.const]
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : schema.oneOf
  if (!Array.isArray(union)) return undefined
  const values: Literal[] = []
  for (const member of union) {
    const value = (member as { const?: unknown } | null)?.const
    if (!isLiteral(value)) return undefined
    values.push(value)
  }
  return values
}

function scalarSpec(schema: Record<string, unknown>, array: boolean): FilterSpec {
  const values = literalsOf(schema)
  const declared = schemaType(schema)
  let type: FilterSpec['type'] = 'string'
  if (declared !== undefined && SCALAR_TYPES.has(declared)) type = declared as FilterSpec['type']
  else if (values !== undefined && values.length > 0 && typeof values[0] !== 'string') {
    type = typeof values[0] === 'boolean' ? 'boolean' : 'number'
  }
  return values === undefined ? { type, array } : { type, values, array }
}

/** Reads a filter field's coercion from its JSON schema (anything unknown: a string). */
export function filterSpecOf(schema: unknown): FilterSpec {
  if (typeof schema !== 'object' || schema === null) return { type: 'string', array: false }
  const record = schema as Record<string, unknown>
  if (schemaType(record) === 'array') {
    const items = record.items
    return scalarSpec(
      typeof items === 'object' && items !== null ? (items as Record<string, unknown>) : {},
      true,
    )
  }
  return scalarSpec(record, false)
}

const INTEGER = /^-?\d{1,16}$/
const NUMBER = /^-?\d{1,300}(?:\.\d{1,300})?(?:[eE][+-]?\d{1,4})?$/

/** Coerces one raw value; returns `undefined` when it does not fit. */
function coerceOne(raw: string, spec: FilterSpec): Literal | undefined {
  let value: Literal | undefined
  switch (spec.type) {
    case 'integer': {
      const n = INTEGER.test(raw) ? Number(raw) : Number.NaN
      value = Number.isSafeInteger(n) ? n : undefined
      break
    }
    case 'number': {
      const n = NUMBER.test(raw) ? Number(raw) : Number.NaN
      value = Number.isFinite(n) ? n : undefined
      break
    }
    case 'boolean':
      value = raw === 'true' ? true : raw === 'false' ? false : undefined
      break
    default:
      value = raw
  }
  if (value === undefined || spec.values === undefined) return value
  return spec.values.includes(value) ? value : undefined
}

/** What went wrong with a filter value, to put in an error's details. */
export interface FilterProblem {
  message: string
}

function describeSpec(spec: FilterSpec): string {
  if (spec.values !== undefined) {
    return `one of ${spec.values.map((v) => JSON.stringify(v)).join(', ')}`
  }
  return spec.type === 'integer' ? 'an integer' : `a ${spec.type}`
}

/**
 * Coerces a raw query value (a string, or an array when the parameter repeats) to the filter's
 * type; returns the value or a problem.
 */
export function coerceFilter(
  raw: unknown,
  spec: FilterSpec,
): { value: unknown } | { problem: FilterProblem } {
  const list = Array.isArray(raw) ? raw : [raw]
  if (!spec.array && list.length !== 1) return { problem: { message: 'must be given once' } }
  if (list.length > MAX_FILTER_VALUES) {
    return { problem: { message: `must not be given more than ${MAX_FILTER_VALUES} times` } }
  }
  const values: Literal[] = []
  for (const item of list) {
    const value = typeof item === 'string' ? coerceOne(item, spec) : undefined
    if (value === undefined) return { problem: { message: `must be ${describeSpec(spec)}` } }
    values.push(value)
  }
  return { value: spec.array ? values : values[0] }
}
