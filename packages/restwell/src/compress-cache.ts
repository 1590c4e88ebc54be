/**
 * A cache of compressed bodies, around `@fastify/compress`. The same bytes asked for with the
 * same `Accept-Encoding` compress to the same bytes: a collection page read a thousand times a
 * minute is gzipped once. Keyed by the route, the Content-Type, the `Accept-Encoding` value
 * (so no negotiation is redone here: the input of `@fastify/compress`'s choice is the key) and
 * the digest that names the identity bytes (the SHA-1 `@restwell/conditional` computed for the
 * ETag, or the one it derived from a collection's item versions; else a SHA-1 computed here).
 * Least recently used entries go first once `cacheBytes` is reached.
 *
 * One `onSend` hook per route, in the place of `@fastify/compress`'s (after conditional's first
 * hook: 304, 412 and 206 are decided on the identity bytes): it looks the body up, on a hit
 * sends the stored body with the headers `@fastify/compress` would set, on a miss calls
 * `@fastify/compress`'s own hook and keeps what it produced. Answers compression would leave
 * alone (no `Accept-Encoding`, a body under the threshold) go out at once. With `cacheBytes: 0`
 * the hook still does that and keeps nothing.
 *
 * A GET whose digest conditional derived from item versions (`ITEMS_DIGEST_PREFIX`) is known
 * before serialization: a third hook, last in `preSerialization`, looks it up there and, on a
 * hit, replaces the serializer with a no-op, so the stored body is sent without the page ever
 * being serialized. Such keys leave the Content-Type out (the digest covers it) and the entry
 * keeps it. A request with `Range` takes the ordinary path (ranges apply to the identity bytes).
 */
import {
  appendVary,
  asList,
  declareState,
  IDENTITY_DIGEST,
  identityDigest,
  ITEMS_DIGEST_PREFIX,
  type RouteEntry,
} from '@restwell/errors'
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRouteHookHandler,
  onSendHookHandler,
  preSerializationHookHandler,
} from 'fastify'

/** Longest `Accept-Encoding` value used in a key; a longer one is compressed, not cached. */
export const MAX_CACHED_ACCEPT_ENCODING = 256

/** The entry found before serialization (and its key), for the lookup hook to send. */
const EARLY = Symbol('restwell.compressCache.early')

interface Entry {
  coding: string
  body: Buffer
  /** The Content-Type it was stored with. */
  type: unknown
}

type Pending = FastifyReply & {
  [EARLY]?: { key: string; hit: Entry }
  [IDENTITY_DIGEST]?: string
}

/** The serializer of a body that is answered from the cache. */
const skipSerialization = (): string => ''

export interface CompressCacheSettings {
  /** Total bytes of compressed bodies kept. */
  maxBytes: number
  /** Bodies smaller than this are not compressed (`@fastify/compress`'s `threshold`). */
  threshold: number
  /** Bodies larger than this are compressed as a stream (`syncThreshold`): not cached. */
  syncThreshold: number
}

export interface CompressCache {
  /** Declares the reply slots the hooks use (one hidden class for every reply). */
  decorate(fastify: FastifyInstance): void
  /** onRoute hook to add before `@fastify/compress` is registered (the early lookup). */
  lookup: onRouteHookHandler
  /** onRoute hook to add after it: lookup, compression and store as one onSend hook. */
  store: onRouteHookHandler
  /** Entries and bytes held (for tests and diagnostics). */
  size(): { entries: number; bytes: number }
}

function append(
  route: RouteEntry,
  slot: 'onSend' | 'preSerialization',
  hook: onSendHookHandler | preSerializationHookHandler,
): void {
  const slots = route as Record<typeof slot, unknown>
  slots[slot] = [...asList(slots[slot]), hook]
}

/**
 * The `Accept-Encoding` value to key on, or undefined when this answer is not cached: not a
 * 200, no or an overlong `Accept-Encoding`, `x-no-compression`, already encoded, or a range.
 */
function cacheableAccept(request: FastifyRequest, reply: FastifyReply): string | undefined {
  const accept = request.headers['accept-encoding']
  if (
    reply.statusCode !== 200 ||
    typeof accept !== 'string' ||
    accept.length > MAX_CACHED_ACCEPT_ENCODING ||
    request.headers['x-no-compression'] !== undefined ||
    reply.hasHeader('content-encoding') ||
    reply.hasHeader('content-range')
  ) {
    return undefined
  }
  return accept
}

/** A digest derived from item versions covers the Content-Type: it stays out of the key. */
function keyOf(route: string, type: unknown, accept: string, digest: string): string {
  return digest.startsWith(ITEMS_DIGEST_PREFIX)
    ? `${route}\n${accept}\n${digest}`
    : `${route}\n${String(type)}\n${accept}\n${digest}`
}

export function compressCache(settings: CompressCacheSettings): CompressCache {
  const entries = new Map<string, Entry>()
  const caching = settings.maxBytes > 0
  let bytes = 0
  let routes = 0
  /**
   * Each route's id in the keys and how many onSend hooks it had when `lookup` ran, before
   * `@fastify/compress`'s onRoute hook: the one hook after those is compression's.
   */
  const seen = new WeakMap<object, { id: string; sendHooks: number }>()

  // The fused hook runs lookup, compression and store in one synchronous call (compression of a
  // body this size is synchronous), so a key is stored at most once: the next identical
  // request is a hit.
  function keep(key: string, entry: Entry): void {
    if (entry.body.length > settings.maxBytes) return
    entries.set(key, entry)
    bytes += entry.body.length
    // The entry just kept fits the budget alone, so the oldest others go until it is met.
    while (bytes > settings.maxBytes) {
      const oldest = entries.keys().next().value as string
      bytes -= (entries.get(oldest) as Entry).body.length
      entries.delete(oldest)
    }
  }

  /** Sends a stored body with the headers compression would have set; it is now the newest. */
  function serve(
    reply: FastifyReply,
    key: string,
    hit: Entry,
    done: (error: null, payload: Buffer) => void,
  ): void {
    if (entries.delete(key)) entries.set(key, hit)
    appendVary(reply, 'accept-encoding')
    if (hit.type !== undefined) reply.header('content-type', hit.type)
    reply.header('content-encoding', hit.coding)
    reply.header('content-length', hit.body.length)
    done(null, hit.body)
  }

  /**
   * Lookup, `@fastify/compress`'s own `onSend` and store, as one hook in compression's place.
   * With the plugin's settings (no per-route `compress` object), an answer compression would
   * leave alone skips it: no `Accept-Encoding`, or a body below the threshold. For those
   * `@fastify/compress` reads three headers and negotiates before it gives up.
   */
  function fused(id: string, compress: onSendHookHandler, own: boolean): onSendHookHandler {
    return function restwellCompress(request, reply, payload, done) {
      const early = (reply as Pending)[EARLY]
      if (early !== undefined) {
        ;(reply as Pending)[EARLY] = undefined
        // Conditional may have made it a 304 since: then there is nothing to send.
        if (reply.statusCode !== 200) return done(null, payload)
        return serve(reply, early.key, early.hit, done)
      }
      // Before the size: measuring a serialized string flattens it (~1 µs for 1 KB).
      if (!own && request.headers['accept-encoding'] === undefined) return done(null, payload)
      const text = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : undefined
      const size = text === undefined ? -1 : Buffer.byteLength(text)
      if (!own && text !== undefined && size < settings.threshold) return done(null, payload)
      const accept = caching && text !== undefined ? cacheableAccept(request, reply) : undefined
      if (
        text === undefined ||
        accept === undefined ||
        size < settings.threshold ||
        size > settings.syncThreshold
      ) {
        return compress.call(this, request, reply, payload, done)
      }
      const digest = (reply as Pending)[IDENTITY_DIGEST] ?? identityDigest(text)
      const key = keyOf(id, reply.getHeader('content-type'), accept, digest)
      const hit = entries.get(key)
      if (hit !== undefined) return serve(reply, key, hit, done)
      const stored = (error: Error | null, compressed?: unknown) => {
        const coding = reply.getHeader('content-encoding')
        if (error === null && typeof coding === 'string' && Buffer.isBuffer(compressed)) {
          keep(key, { coding, body: compressed, type: reply.getHeader('content-type') })
        }
        ;(done as (error: Error | null, payload?: unknown) => void)(error, compressed)
      }
      compress.call(this, request, reply, payload, stored as Parameters<onSendHookHandler>[3])
    }
  }

  return {
    decorate(fastify) {
      fastify.decorateReply(EARLY as unknown as string, undefined)
      declareState(fastify, 'reply', IDENTITY_DIGEST)
    },
    lookup(route) {
      if ((route as { compress?: unknown }).compress === false) return
      const id = String(++routes)
      seen.set(route, { id, sendHooks: asList((route as { onSend?: unknown }).onSend).length })
      const methods = Array.isArray(route.method) ? route.method : [route.method]
      if (!caching || !methods.includes('GET')) return
      append(route, 'preSerialization', function restwellCompressEarly(
        request,
        reply,
        payload,
        done,
      ) {
        const digest = (reply as Pending)[IDENTITY_DIGEST]
        if (
          digest === undefined ||
          !digest.startsWith(ITEMS_DIGEST_PREFIX) ||
          request.method !== 'GET' ||
          request.headers.range !== undefined
        ) {
          return done(null, payload)
        }
        const accept = cacheableAccept(request, reply)
        if (accept === undefined) return done(null, payload)
        const key = keyOf(id, undefined, accept, digest)
        const hit = entries.get(key)
        if (hit !== undefined) {
          ;(reply as Pending)[EARLY] = { key, hit }
          reply.serializer(skipSerialization)
        }
        done(null, payload)
      } as preSerializationHookHandler)
    },
    store(route) {
      const before = seen.get(route)
      if (before === undefined) return
      const hooks = asList((route as { onSend?: unknown }).onSend) as onSendHookHandler[]
      if (hooks.length !== before.sendHooks + 1) {
        throw new Error(
          `restwell: ${String(route.method)} ${route.url}: expected @fastify/compress to add one onSend hook, found ${hooks.length - before.sendHooks}`,
        )
      }
      const compress = hooks[before.sendHooks] as onSendHookHandler
      const own = typeof (route as { compress?: unknown }).compress === 'object'
      hooks[before.sendHooks] = fused(before.id, compress, own)
      ;(route as { onSend?: unknown }).onSend = hooks
    },
    size: () => ({ entries: entries.size, bytes }),
  }
}
