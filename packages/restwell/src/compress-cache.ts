/**
 * A cache of compressed bodies, around `@fastify/compress`. The same bytes asked for with the
 * same `Accept-Encoding` compress to the same bytes: a collection page read a thousand times a
 * minute is gzipped once. Keyed by the route, the Content-Type, the `Accept-Encoding` value
 * (so no negotiation is redone here: the input of `@fastify/compress`'s choice is the key) and
 * the digest that names the identity bytes (the SHA-1 `@restwell/conditional` computed for the
 * ETag, or the one it derived from a collection's item versions; else a SHA-1 computed here). Least recently used entries go first once `cacheBytes` is reached.
 *
 * Two `onSend` hooks per route: `lookup` runs after conditional's first hook (304, 412 and 206
 * are decided on the identity bytes) and before compression; on a hit it sends the stored body
 * with the headers `@fastify/compress` would set, and compression leaves an encoded body alone.
 * `store` runs after compression and keeps what it produced.
 */
import { hash } from 'node:crypto'
import { appendVary, IDENTITY_DIGEST, type RouteEntry } from '@restwell/errors'
import type { FastifyInstance, FastifyReply, onRouteHookHandler, onSendHookHandler } from 'fastify'

/** Longest `Accept-Encoding` value used in a key; a longer one is compressed, not cached. */
export const MAX_CACHED_ACCEPT_ENCODING = 256

const PENDING = Symbol('restwell.compressCache.key')
type Pending = FastifyReply & { [PENDING]?: string; [IDENTITY_DIGEST]?: string }

interface Entry {
  coding: string
  body: Buffer
}

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
  /** onRoute hook to add before `@fastify/compress` is registered. */
  lookup: onRouteHookHandler
  /** onRoute hook to add after it. */
  store: onRouteHookHandler
  /** Entries and bytes held (for tests and diagnostics). */
  size(): { entries: number; bytes: number }
}

function appendSend(route: RouteEntry, hook: onSendHookHandler): void {
  const own = route.onSend
  route.onSend = own === undefined ? [hook] : Array.isArray(own) ? [...own, hook] : [own, hook]
}

export function compressCache(settings: CompressCacheSettings): CompressCache {
  const entries = new Map<string, Entry>()
  let bytes = 0
  let routes = 0

  // lookup and store run in one synchronous onSend chain (compression of a body this size is
  // synchronous), so a key is stored at most once: the next identical request is a hit.
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

  return {
    decorate(fastify) {
      fastify.decorateReply(PENDING as unknown as string, undefined)
      if (!fastify.hasReplyDecorator(IDENTITY_DIGEST as unknown as string)) {
        fastify.decorateReply(IDENTITY_DIGEST as unknown as string, undefined)
      }
    },
    lookup(route) {
      if ((route as { compress?: unknown }).compress === false) return
      const id = String(++routes)
      appendSend(route, function restwellCompressLookup(request, reply, payload, done) {
        const accept = request.headers['accept-encoding']
        if (
          reply.statusCode !== 200 ||
          typeof accept !== 'string' ||
          accept.length > MAX_CACHED_ACCEPT_ENCODING ||
          (typeof payload !== 'string' && !Buffer.isBuffer(payload)) ||
          request.headers['x-no-compression'] !== undefined ||
          reply.hasHeader('content-encoding') ||
          reply.hasHeader('content-range')
        ) {
          return done(null, payload)
        }
        const size = Buffer.byteLength(payload)
        if (size < settings.threshold || size > settings.syncThreshold) return done(null, payload)
        const digest = (reply as Pending)[IDENTITY_DIGEST] ?? hash('sha1', payload, 'base64url')
        const key = `${id}\n${String(reply.getHeader('content-type'))}\n${accept}\n${digest}`
        const hit = entries.get(key)
        if (hit === undefined) {
          ;(reply as Pending)[PENDING] = key
          return done(null, payload)
        }
        entries.delete(key)
        entries.set(key, hit)
        appendVary(reply, 'accept-encoding')
        reply.header('content-encoding', hit.coding)
        reply.header('content-length', hit.body.length)
        done(null, hit.body)
      })
    },
    store(route) {
      if ((route as { compress?: unknown }).compress === false) return
      appendSend(route, function restwellCompressStore(_request, reply, payload, done) {
        const key = (reply as Pending)[PENDING]
        if (key === undefined) return done(null, payload)
        ;(reply as Pending)[PENDING] = undefined
        const coding = reply.getHeader('content-encoding')
        if (typeof coding === 'string' && Buffer.isBuffer(payload)) {
          keep(key, { coding, body: payload })
        }
        done(null, payload)
      })
    },
    size: () => ({ entries: entries.size, bytes }),
  }
}
