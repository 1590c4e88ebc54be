/** `InvalidTokenError`: what `verify` throws to reject a token with a specific description. */

const BRAND: unique symbol = Symbol.for('restwell.auth.invalid-token')

/**
 * Thrown by `verify` to reject a token with a reason the client may read, e.g.
 * `throw new InvalidTokenError('The access token expired')`: the answer is 401 with
 * `error="invalid_token", error_description="The access token expired"`.
 */
export class InvalidTokenError extends Error {
  override readonly name: string = 'InvalidTokenError'
  readonly [BRAND]: true = true
}

/** True for an `InvalidTokenError`, even one made by another copy of this package. */
export function isInvalidTokenError(value: unknown): value is InvalidTokenError {
  return (
    typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true
  )
}
