/** A payload as JSON sees it, for the representations that read its fields (HAL, JSON:API, Siren, XML). */

type Holder = Record<string, unknown>

function hasToJson(value: object): value is { toJSON: (key: string) => unknown } {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function'
}

/**
 * `value` as `JSON.stringify` would read it: every object with a `toJSON` method is replaced, at
 * any depth, by a plain copy of what `toJSON(key)` returns, so no form reaches the original.
 * Copy on write: a payload with no `toJSON` comes back as is. Throws a `RangeError` on a cycle.
 */
export function jsonValue(value: unknown): unknown {
  return walk(value, '')
}

function walk(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (hasToJson(value)) {
    const replaced = value.toJSON(key)
    return typeof replaced === 'object' && replaced !== null ? copy(replaced) : replaced
  }
  if (Array.isArray(value)) {
    let out: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const next = walk(item, String(i))
      if (next === item) continue
      out ??= value.slice()
      out[i] = next
    }
    return out ?? value
  }
  let out: Holder | undefined
  for (const name of Object.keys(value)) {
    const field = (value as Holder)[name]
    const next = walk(field, name)
    if (next === field) continue
    out ??= { ...value }
    out[name] = next
  }
  return out ?? value
}

/** A plain copy of what a `toJSON` returned, its fields read as JSON reads them. */
function copy(value: object): unknown {
  if (Array.isArray(value)) return value.map((item, i) => walk(item, String(i)))
  const out: Holder = {}
  for (const name of Object.keys(value)) {
    const field = walk((value as Holder)[name], name)
    const type = typeof field
    if (type === 'function' || type === 'symbol' || type === 'undefined') continue
    out[name] = field
  }
  return out
}
