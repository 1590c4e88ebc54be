/** The error of a route that breaks a naming rule, in `error` mode. */
import type { NamingViolation } from './rules.js'

/** Thrown in `error` mode when a route breaks a naming rule. */
export class NamingError extends Error {
  override readonly name: string = 'NamingError'
  readonly code: string = 'RESTWELL_ROUTE_NAMING'
  /** The route's path as registered. */
  readonly route: string
  readonly violations: readonly NamingViolation[]

  constructor(route: string, violations: readonly NamingViolation[]) {
    super(
      `@restwell/naming: route ${route} breaks ${violations
        .map((v) => `"${v.rule}": ${v.message}`)
        .join('; ')}`,
    )
    this.route = route
    this.violations = violations
  }
}
