/**
 * The integrity fields of an answer: `Repr-Digest` over the selected representation (RFC 9530
 * §3) and `Content-Digest` over the content sent (§2), when the client asks (`Want-*`, §4) or
 * the route says so. Run on the bytes as sent: after compression, since a content coding is
 * part of the representation (RFC 9110 §8.4), and on a 206's part.
 */
import type { SendStep } from '@restwell/core'
import { type BodyDigests, bodyDigestsOf, fullRepresentationOf } from '@restwell/core/internal'
import type { FastifyRequest } from 'fastify'
import { type Algorithm, digestOf } from './algorithms.js'
import { parsePreferences, serializeIntegrity } from './fields.js'
import type { DigestSettings } from './options.js'

const EMPTY = Buffer.alloc(0)

/**
 * The algorithm to answer with: the one of the server's the client prefers most (a preference
 * above 0), else the server's first the client does not refuse, else none (every one refused
 * with 0). Without a usable preference: the server's first. RFC 9530 §4: a hint only.
 */
export function chooseAlgorithm(
  preferences: ReadonlyMap<string, number> | undefined,
  algorithms: readonly Algorithm[],
): Algorithm | undefined {
  if (preferences === undefined) return algorithms[0]
  let best: Algorithm | undefined
  let weight = 0
  for (const algorithm of algorithms) {
    const stated = preferences.get(algorithm) ?? 0
    if (stated > weight) {
      best = algorithm
      weight = stated
    }
  }
  return best ?? algorithms.find((algorithm) => !preferences.has(algorithm))
}

/** The algorithm of one field for this request, or undefined when it is not sent. */
function wanted(
  request: FastifyRequest,
  header: 'want-repr-digest' | 'want-content-digest',
  always: boolean,
  algorithms: readonly Algorithm[],
): Algorithm | undefined {
  const value = request.headers[header]
  const preferences = typeof value === 'string' ? parsePreferences(value) : undefined
  if (preferences === undefined && !always) return undefined
  return chooseAlgorithm(preferences, algorithms)
}

/** The bytes of a payload, or undefined for one that is not all here yet (a stream). */
function bytesOf(payload: unknown): string | Buffer | undefined {
  if (payload === null || payload === undefined) return EMPTY
  return typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : undefined
}

/** The digest of `bytes`, taken from `kept` (the digests of those bytes) or made and kept there. */
function remembered(kept: BodyDigests, algorithm: Algorithm, bytes: string | Buffer): Uint8Array {
  const known = kept[algorithm]
  if (known !== undefined) return known
  const made = digestOf(algorithm, bytes)
  kept[algorithm] = made
  return made
}

/**
 * The send step of one route: `Repr-Digest` and `Content-Digest` on its answers, a 304 and a
 * 204 excepted (they have no representation data, RFC 9110 §15.4.5). A streamed body gets none
 * (its digest is not known before the header section is sent). A header the handler set stays.
 */
export function answerDigests(settings: DigestSettings): SendStep {
  const { algorithms } = settings
  return function answerDigests(request, reply, payload) {
    const repr = wanted(request, 'want-repr-digest', settings.repr, algorithms)
    const content = wanted(request, 'want-content-digest', settings.content, algorithms)
    if (repr === undefined && content === undefined) return undefined
    const status = reply.statusCode
    if (status === 304 || status === 204) return undefined
    const bytes = bytesOf(payload)
    if (bytes === undefined) return undefined
    // Each body is hashed once per algorithm: the fields share it, a cache keeps it with the body.
    const kept = bodyDigestsOf(reply) ?? {}
    if (repr !== undefined && !reply.hasHeader('repr-digest')) {
      const whole = status === 206 ? fullRepresentationOf(reply) : bytes
      if (whole !== undefined) {
        const digest = whole === bytes ? remembered(kept, repr, bytes) : digestOf(repr, whole)
        reply.header('repr-digest', serializeIntegrity(repr, digest))
      }
    }
    if (content !== undefined && !reply.hasHeader('content-digest')) {
      // A HEAD answer has no content, whatever its Content-Length says (RFC 9530 Appendix B.2).
      const digest =
        request.method === 'HEAD' ? digestOf(content, EMPTY) : remembered(kept, content, bytes)
      reply.header('content-digest', serializeIntegrity(content, digest))
    }
    return undefined
  }
}
