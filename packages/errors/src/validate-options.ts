/** Option validation shared by every restwell plugin: one TypeBox schema, one clear message. */
import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

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

function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function'
  if (value === undefined) return 'undefined'
  const json = JSON.stringify(value)
  return json.length > 60 ? `${json.slice(0, 57)}...` : json
}

/**
 * Checks `options` against `schema` and returns them typed. Throws an `OptionsError` naming
 * the first bad option, what was expected and what was given.
 */
export function validateOptions<T extends TSchema>(
  plugin: string,
  schema: T,
  options: unknown,
): Static<T> {
  const given: Record<string, unknown> = {}
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object' || Array.isArray(options)) {
      throw new OptionsError(plugin, '(options)', `must be an object, got ${describe(options)}`)
    }
    for (const [key, value] of Object.entries(options)) {
      if (!FASTIFY_KEYS.has(key)) given[key] = value
    }
  }
  const first = Value.Errors(schema, given).First()
  if (first !== undefined) {
    const option = first.path.replace(/^\//, '').replace(/\//g, '.') || '(options)'
    throw new OptionsError(
      plugin,
      option,
      `is invalid: ${first.message}, got ${describe(first.value)}`,
    )
  }
  return given as Static<T>
}
