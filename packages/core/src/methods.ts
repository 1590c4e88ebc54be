/**
 * The method sets of RFC 9110 §9, written once: which methods are safe, read a
 * representation, carry content, or are never routed.
 */

/** The methods restwell routes, in the order `Allow` lists them. */
export const STANDARD_METHODS: readonly string[] = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]

/** Methods never routed: the spec does not use them (4.1), and TRACE echoes credentials. */
export const REFUSED_METHODS: ReadonlySet<string> = new Set(['TRACE', 'CONNECT'])

/**
 * Safe methods (RFC 9110 §9.2.1) among those routed: the client asks for no change. TRACE is
 * safe too, and never routed (`REFUSED_METHODS`).
 */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Unsafe methods (RFC 9110 §9.2.1) among those routed: the ones that change the target. */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** Methods that transfer the target's representation: GET and HEAD (RFC 9110 §9.3.1-2). */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD'])

/** Methods whose request content has defined semantics (RFC 9110 §9.3.3-4, RFC 5789). */
export const CONTENT_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH'])

/** Methods whose request body Fastify never reads (its `bodyless` methods). */
export const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE'])
