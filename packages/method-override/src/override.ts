/** Which method an override asks for: one value, the same in header and query, from the allowed list. */
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'
import { HEAD_TARGET_PROBLEM } from './options.js'

/** Longest override value echoed in an error message. */
const MAX_ECHOED = 32
/** Methods never reachable by override, whatever the configuration says (spec 4.1). */
const REFUSED = new Set(['TRACE', 'CONNECT'])

/** One value an override carried: `field` is `headers/<name>` or `querystring/<name>`. */
export interface OverrideSource {
  field: string
  value: string
}

function shown(value: string): string {
  return JSON.stringify(value.length > MAX_ECHOED ? `${value.slice(0, MAX_ECHOED)}...` : value)
}

function invalid(message: string, field: string, detail: string): HttpError {
  return httpErrors.badRequest(message, {
    code: ErrorCode.INVALID_METHOD_OVERRIDE,
    details: [{ field, message: detail, code: ErrorCode.INVALID_METHOD_OVERRIDE }],
  })
}

/**
 * The method the sources name (upper case), or the 400 `INVALID_METHOD_OVERRIDE` to answer: an
 * empty or listed value (`PUT, DELETE`), sources that disagree, TRACE or CONNECT, or a method
 * outside `allowed`. Method names are case-insensitive.
 */
export function overrideMethod(
  sources: readonly OverrideSource[],
  allowed: ReadonlySet<string>,
): string | HttpError {
  let method: string | undefined
  let from: OverrideSource | undefined
  for (const source of sources) {
    const value = source.value.trim().toUpperCase()
    if (value === '' || value.includes(',')) {
      return invalid(
        `Method override ${shown(source.value)} must name exactly one method`,
        source.field,
        'must be one method name',
      )
    }
    if (method !== undefined && from !== undefined && value !== method) {
      return invalid(
        `Method overrides disagree: ${from.field} says ${shown(method)}, ${source.field} says ${shown(value)}`,
        source.field,
        `disagrees with ${from.field}`,
      )
    }
    method = value
    from = source
  }
  // Callers pass at least one source.
  const target = method as string
  const field = (from as OverrideSource).field
  if (REFUSED.has(target)) {
    return invalid(
      `Method ${target} is not used by this API`,
      field,
      'TRACE and CONNECT are refused',
    )
  }
  if (target === 'HEAD') {
    // Refused whatever `allowed` says (a list built by hand may hold it): see HEAD_TARGET_PROBLEM.
    return invalid(
      `Method override HEAD is refused: ${HEAD_TARGET_PROBLEM}`,
      field,
      'HEAD cannot be reached by override; use GET',
    )
  }
  if (!allowed.has(target)) {
    const list = [...allowed].join(', ')
    return invalid(
      `Method override ${shown(target)} is not allowed; allowed: ${list}`,
      field,
      `must be one of ${list}`,
    )
  }
  return target
}
