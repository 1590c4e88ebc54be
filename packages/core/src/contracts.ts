/**
 * Contracts between restwell plugins that must not depend on each other. Each is a
 * `Symbol.for` key set on the reply or request object, with the type of what it holds. The
 * plugins that use one declare it with `declareState`, which any of them may do first.
 */
import { hash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { checkEveryRoute, type RouteEntry } from './routes.js'

/** Links of one page of a collection (absolute paths with query strings). */
export interface PageLinks {
  self: string
  first?: string
  prev?: string
  next?: string
  last?: string
}

/** What a paginated reply is: the items and where they sit in the collection. */
export interface PageInfo {
  items: readonly unknown[]
  links: PageLinks
  meta: {
    /** 1-based page number (offset pagination). */
    page?: number
    limit: number
    /** Total number of items, when known. */
    total?: number
    /** Total number of pages, when the total is known. */
    totalPages?: number
  }
}

/**
 * Set on the reply by `@restwell/pagination` (`reply[PAGE] = info`) before it sends a page;
 * read by `@restwell/negotiation`'s HAL, JSON:API and Siren serializers to build their
 * collection envelopes from `items` and `links` instead of the plain JSON payload.
 */
export const PAGE: unique symbol = Symbol.for('restwell.page')

/**
 * Set on the request by `@restwell/negotiation` (`request[MEDIA_TYPE] = 'application/hal+json'`)
 * once the response media type is chosen, before the handler runs. Absent: JSON.
 */
export const MEDIA_TYPE: unique symbol = Symbol.for('restwell.media-type')

/**
 * Set on the request by `@restwell/negotiation` once the representation is chosen, before the
 * handler runs, when it is not the route's default one (its first media type, in its default
 * language): `<format>` (`xml`, `hal`; a type without a `?format=` name is itself,
 * `text/csv`), then `;<language>` when the language is not the default (lower case, `_` for
 * `-`: `json;pt_br`). Absent: the default representation. Read by `@restwell/conditional`, which
 * adds it to an ETag made from a version, so that one strong tag never names two
 * representations (RFC 9110 §8.8.3).
 */
export const REPRESENTATION: unique symbol = Symbol.for('restwell.representation')

/**
 * What tells the request's representation apart from the route's default (`REPRESENTATION`,
 * set by `@restwell/negotiation`): `xml`, `hal`, `json;de`; undefined for the default one.
 *
 * @param request the request, once negotiation has chosen (from a `beforeHandler` step on)
 * @example
 * const variant = representationOf(request) ?? 'default' // one ETag per representation
 */
export function representationOf(request: object): string | undefined {
  return (request as { [REPRESENTATION]?: string })[REPRESENTATION]
}

/**
 * Set on the request by `@restwell/negotiation`'s JSON parser: the body's bytes as it read them
 * (a content coding decoded), so that a plugin that fingerprints the body
 * (`@restwell/idempotency`) hashes them instead of serializing the parsed value again.
 */
export const BODY_BYTES: unique symbol = Symbol.for('restwell.body-bytes')

/**
 * The body's bytes a restwell parser kept under `BODY_BYTES` (a content coding decoded), if one
 * did: a step that fingerprints the body hashes them instead of serializing the parsed value.
 *
 * @param request the request, once its body is read (a `beforeHandler` step)
 * @example
 * const bytes = bodyBytesOf(request) ?? Buffer.from(JSON.stringify(request.body))
 */
export function bodyBytesOf(request: object): Buffer | undefined {
  return (request as { [BODY_BYTES]?: Buffer })[BODY_BYTES]
}

/**
 * Set on the reply by `@restwell/conditional` when it knows a digest that names the identity
 * bytes of a body: the SHA-1 (base64url) it hashed them into for the ETag, or, for a collection
 * of versioned items, `items.<digest>` of their ids and versions (which stands for the bytes
 * under the same contract as the ETag). The umbrella's cache of compressed bodies keys on it
 * instead of hashing the same bytes again.
 */
export const IDENTITY_DIGEST: unique symbol = Symbol.for('restwell.identity-digest')

/** The digest of a body's identity bytes under the `IDENTITY_DIGEST` contract: SHA-1, base64url. */
export function identityDigest(bytes: string | Buffer): string {
  return hash('sha1', bytes, 'base64url')
}

/**
 * How an `IDENTITY_DIGEST` derived from a collection's item versions begins. Such a digest is
 * known before serialization, and the bytes it names depend only on what it was made from
 * (their Content-Type included), so a cache may answer from it before serializing.
 */
export const ITEMS_DIGEST_PREFIX = 'items.'

/**
 * Set on the reply by a step that sends bytes it keeps (a cache of compressed bodies): an object
 * kept with those bytes, which holds their digests by algorithm (`sha-256` → the digest's bytes).
 * `@restwell/digest` reads a digest from it rather than hashing the same bytes again, and adds
 * the ones it makes, so each kept body is hashed once per algorithm (RFC 9530 §2, §3).
 */
export const BODY_DIGESTS: unique symbol = Symbol.for('restwell.body-digests')

/** The digests of a body's bytes by algorithm (`BODY_DIGESTS`): filled by whoever hashes them. */
export type BodyDigests = Record<string, Uint8Array>

/** The digests kept with the bytes a reply sends, if the step that sends them keeps any. */
export function bodyDigestsOf(reply: object): BodyDigests | undefined {
  return (reply as { [BODY_DIGESTS]?: BodyDigests })[BODY_DIGESTS]
}

/**
 * Set on the reply by a step that answers with a part of the selected representation (a 206 of
 * `@restwell/conditional`): the bytes of the whole representation, so that a step after it can
 * still describe the whole (`Repr-Digest`, RFC 9530 §3), which the part no longer shows.
 */
export const FULL_REPRESENTATION: unique symbol = Symbol.for('restwell.full-representation')

/** The whole representation a partial answer was cut from (`FULL_REPRESENTATION`), if known. */
export function fullRepresentationOf(reply: object): string | Buffer | undefined {
  return (reply as { [FULL_REPRESENTATION]?: string | Buffer })[FULL_REPRESENTATION]
}

/**
 * Set on the reply by `@restwell/conditional` once it knows, before serialization, that the
 * answer is a 304 (a version the handler's value carries matched `If-None-Match`): a step after
 * it builds nothing for the body that will not be sent. Set on such replies only.
 */
const NOT_MODIFIED: unique symbol = Symbol.for('restwell.not-modified')

/**
 * Marks the answer as decided to be a 304 (`isNotModified`).
 *
 * @param reply the reply a precondition check turned into a 304 before its body was serialized
 * @example
 * if (outcome.result === 'not-modified') markNotModified(reply)
 */
export function markNotModified(reply: object): void {
  ;(reply as { [NOT_MODIFIED]?: true })[NOT_MODIFIED] = true
}

/**
 * Whether the answer was decided to be a 304 before serialization (`markNotModified`); in the
 * send phase, `reply.statusCode === 304` says so.
 *
 * @param reply the reply a serialization step shapes
 * @example
 * if (isNotModified(reply)) return undefined // nothing to compress
 */
export function isNotModified(reply: object): boolean {
  return (reply as { [NOT_MODIFIED]?: true })[NOT_MODIFIED] === true
}

/**
 * Set on the request by `@restwell/versioning` (a getter): the API versions whose versioned JSON
 * (`application/vnd.<name>.v<N>+json`, spec 9) the request may be answered in: `{N}` on a
 * `/v<N>` route, every supported version on an unversioned one. The same set object is handed
 * out for the same versions, so a consumer may remember verdicts per set. Read by
 * `@restwell/negotiation`: a versioned JSON range of another version is not JSON to it.
 */
export const API_VERSIONS: unique symbol = Symbol.for('restwell.api-versions')

/**
 * The API versions a request may be answered in, if a versioning plugin says (`API_VERSIONS`,
 * set by `@restwell/versioning`): `{N}` on a `/v<N>` route, every supported one elsewhere.
 *
 * @param request the request, from its route's first step on
 * @example
 * const versioned = apiVersionsOf(request)?.has(2) ?? false
 */
export function apiVersionsOf(request: object): ReadonlySet<number> | undefined {
  return (request as { [API_VERSIONS]?: ReadonlySet<number> })[API_VERSIONS]
}

/**
 * Set on a route's options (as `onRoute` hooks get them) by `@restwell/auth` when its guard
 * applies to the route: the answer depends on the credentials. Read by
 * `@restwell/cache-control` (`private`, `Vary: Authorization`).
 */
export const AUTHENTICATES: unique symbol = Symbol.for('restwell.route.authenticates')

/**
 * Whether an authentication plugin's guard applies to the route (`AUTHENTICATES`, set by
 * `@restwell/auth` on its options): the route's answers depend on the credentials.
 *
 * @param route the route's options (`RouteContext.route`), or `request.routeOptions`
 * @example
 * route: (context) => (authenticates(context.route) ? { send: privateAnswers } : undefined)
 */
export function authenticates(route: object): boolean {
  return (route as { [AUTHENTICATES]?: boolean })[AUTHENTICATES] === true
}

/**
 * Whether the route's `config.auth` (`@restwell/auth`'s key) asks for authentication: `true`
 * or a requirement object. Only an authentication plugin's guard makes it so.
 */
export function asksForAuthentication(route: RouteEntry): boolean {
  const auth = (route.config as { auth?: unknown } | undefined)?.auth
  return auth === true || (typeof auth === 'object' && auth !== null)
}

/**
 * Makes `ready()` fail with `refusal(routes)` when routes of the app ask for authentication
 * (`asksForAuthentication`) that no authentication plugin's guard gives them (`AUTHENTICATES`):
 * none registered, or none whose scope reaches them. Such a route would be public.
 */
export function refuseUnguardedRoutes(
  fastify: FastifyInstance,
  refusal: (routes: readonly RouteEntry[]) => Error,
): void {
  checkEveryRoute(fastify, (routes) => {
    const open = routes.filter((route) => asksForAuthentication(route) && !authenticates(route))
    if (open.length > 0) throw refusal(open)
  })
}

/**
 * Set on the instance by a plugin that compresses answers as a step after the ETag is computed
 * (the umbrella's compression, `declareCompression`), so `@restwell/conditional` varies on
 * `Accept-Encoding`. A name of Fastify's decorator namespace (`reply.compress`) is left to
 * `@fastify/compress`, so the two collide in a clear error, not on a decorator.
 */
export const COMPRESSES: unique symbol = Symbol.for('restwell.compresses')

/** Declares that answers of `fastify`'s scope may be compressed (`COMPRESSES`). */
export function declareCompression(fastify: FastifyInstance): void {
  if (!fastify.hasDecorator(COMPRESSES as unknown as string)) {
    fastify.decorate(COMPRESSES as unknown as string, true)
  }
}

/** Whether answers of `fastify`'s scope may be compressed: `COMPRESSES`, or `@fastify/compress`. */
export function compressesAnswers(fastify: FastifyInstance): boolean {
  return (
    fastify.hasDecorator(COMPRESSES as unknown as string) || fastify.hasReplyDecorator('compress')
  )
}

/**
 * The page a pagination plugin left on the reply (`PAGE`, set by `@restwell/pagination`): its
 * items, links and counts, for a step that writes a collection envelope; undefined otherwise.
 *
 * @param reply the reply, from the `serialize` phase on
 * @example
 * const serialize: SerializeStep = (_request, reply, payload) => {
 *   const page = pageOf(reply)
 *   return page === undefined ? undefined : { data: page.items, links: page.links }
 * }
 */
export function pageOf(reply: object): PageInfo | undefined {
  return (reply as { [PAGE]?: PageInfo })[PAGE]
}

/**
 * Declares symbol-keyed state that plugins keep on requests or replies (`undefined` until set),
 * unless the app already has it, so every request or reply keeps one object shape. Declare what
 * every request of a common route sets (a declared slot costs every request about 220
 * instructions in Fastify's constructors); state only some requests set (a PATCH's parsed body,
 * a 206's whole, a digest) is cheaper added where it is set.
 */
export function declareState(
  fastify: FastifyInstance,
  on: 'request' | 'reply',
  ...keys: readonly symbol[]
): void {
  for (const key of keys) {
    const name = key as unknown as string
    if (on === 'request') {
      if (!fastify.hasRequestDecorator(name)) fastify.decorateRequest(name, undefined)
    } else if (!fastify.hasReplyDecorator(name)) {
      fastify.decorateReply(name, undefined)
    }
  }
}

/**
 * The response media type negotiation chose for the request (`MEDIA_TYPE`, set by
 * `@restwell/negotiation` before the handler runs): `application/hal+json`; undefined: JSON.
 *
 * @param request the request, from a `beforeHandler` step on
 * @example
 * const hal = mediaTypeOf(request) === 'application/hal+json'
 */
export function mediaTypeOf(request: object): string | undefined {
  return (request as { [MEDIA_TYPE]?: string })[MEDIA_TYPE]
}
