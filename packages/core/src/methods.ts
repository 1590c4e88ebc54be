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
  'QUERY',
]

/** Methods never routed: the spec does not use them (4.1), and TRACE echoes credentials. */
export const REFUSED_METHODS: ReadonlySet<string> = new Set(['TRACE', 'CONNECT'])

/**
 * Safe methods (RFC 9110 §9.2.1) among those routed: the client asks for no change. QUERY is
 * safe and idempotent (RFC 10008 §2). TRACE is safe too, and never routed (`REFUSED_METHODS`).
 */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'QUERY'])

/** Unsafe methods (RFC 9110 §9.2.1) among those routed: the ones that change the target. */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** Methods that transfer the target's representation: GET and HEAD (RFC 9110 §9.3.1-2). */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD'])

/** Methods whose request content has defined semantics (RFC 9110 §9.3.3-4, RFC 5789, RFC 10008). */
export const CONTENT_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'QUERY'])

/**
 * Methods whose answer is a cacheable representation that validators describe: an ETag, a 304
 * (RFC 9110 §13.1.2, §9.3.1-2) and a `Cache-Control` for reads. A QUERY answer is cacheable,
 * keyed by the request content too (RFC 10008 §2).
 */
export const VALIDATED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'QUERY'])

/** Methods whose request body Fastify never reads (its `bodyless` methods). */
export const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE'])
