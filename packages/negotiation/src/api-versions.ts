/**
 * Contract with `@restwell/versioning`, which this package does not depend on: the API
 * versions whose versioned JSON (`application/vnd.<name>.v<N>+json`, spec 9) a request may be
 * answered in. Versioning sets it on every request (a getter under `Symbol.for`): `{N}` on a
 * `/v<N>` route, every supported version on an unversioned route. Absent (no versioning plugin):
 * any versioned JSON range reads as JSON (option `versionedJson`).
 */

/** Key of the contract on the request: `request[API_VERSIONS]` is a `ReadonlySet<number>`. */
export const API_VERSIONS: unique symbol = Symbol.for('restwell.api-versions')

/**
 * The versions a request may be answered in, if a versioning plugin says. Producers hand out
 * the same set object for the same versions (consumers remember verdicts per set).
 */
export function apiVersionsOf(request: object): ReadonlySet<number> | undefined {
  return (request as { [API_VERSIONS]?: ReadonlySet<number> })[API_VERSIONS]
}
