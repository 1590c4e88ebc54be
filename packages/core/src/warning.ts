/** Developer warnings found at registration: for apps with a logger and for apps without one. */
import type { FastifyBaseLogger } from 'fastify'

/** The `name` of every warning restwell emits on the process (`process.on('warning')`). */
export const WARNING_TYPE = 'RestwellWarning'

/** Warnings emitted already by this process (code and message), remembered up to a bound. */
const emitted = new Set<string>()
const MAX_REMEMBERED = 1000

/** Whether the logger says it shows `warn` lines (pino's `isLevelEnabled`). */
function showsWarnings(log: FastifyBaseLogger): boolean {
  const isLevelEnabled = (log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled
  return typeof isLevelEnabled === 'function' && isLevelEnabled.call(log, 'warn')
}

/**
 * Tells the developer of a problem found while the app is set up (a route breaking a naming
 * rule): a `warn` line on the app's logger, plus, when that logger does not show `warn` lines, a
 * `RestwellWarning` process warning, once per process for the same code and message.
 */
export function developerWarning(
  log: FastifyBaseLogger,
  code: string,
  message: string,
  fields: Record<string, unknown> = {},
): void {
  log.warn(fields, message)
  if (showsWarnings(log)) return
  const key = `${code} ${message}`
  if (emitted.has(key)) return
  if (emitted.size >= MAX_REMEMBERED) emitted.clear()
  emitted.add(key)
  process.emitWarning(message, { type: WARNING_TYPE, code })
}
