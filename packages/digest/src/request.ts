/**
 * The integrity fields of a request (RFC 9530 §2, §3): its content is hashed as it is read, and
 * checked before the handler; a digest that does not match is a 400 and the handler never runs.
 * A request carries no range, so both fields name the content as received (its coding kept).
 */
import { timingSafeEqual } from 'node:crypto'
import { pipeline, Transform } from 'node:stream'
import type { RequestStep } from '@restwell/core'
import type { HttpError } from '@restwell/errors'
import type { FastifyRequest, preParsingHookHandler } from 'fastify'
import { type Algorithm, DIGEST_LENGTHS, hashOf, isAlgorithm } from './algorithms.js'
import { parseIntegrity } from './fields.js'
import type { DigestSettings } from './options.js'
import {
  type IntegrityHeader,
  invalidValues,
  mismatchedValues,
  mismatchReason,
  type RefusedDigest,
  unsupportedAlgorithms,
} from './problems.js'

/** One digest a request's field states, to compare once the content is read. */
interface Expected {
  readonly header: IntegrityHeader
  readonly algorithm: Algorithm
  readonly digest: Uint8Array
}

/** What the request's content is checked against, and the hashes it runs through. */
export interface DigestCheck {
  readonly expected: readonly Expected[]
  readonly hashes: ReadonlyMap<Algorithm, ReturnType<typeof hashOf>>
}

/** The request's check, kept from the body's reading to the handler (declared on requests). */
export const DIGEST_CHECK: unique symbol = Symbol('restwell.digest.check')

type Checked = FastifyRequest & { [DIGEST_CHECK]?: DigestCheck }

const HEADERS: readonly IntegrityHeader[] = ['content-digest', 'repr-digest']

/** What the request's integrity fields state: the digests to check, or the 400 to answer. */
export function readIntegrity(
  request: FastifyRequest,
  algorithms: readonly Algorithm[],
): Expected[] | HttpError {
  const expected: Expected[] = []
  const invalid: RefusedDigest[] = []
  const unsupported: RefusedDigest[] = []
  for (const header of HEADERS) {
    const value = request.headers[header]
    const digests = typeof value === 'string' ? parseIntegrity(value) : undefined
    if (digests === undefined) continue
    const checked = expected.length
    for (const [key, digest] of digests) {
      if (!isAlgorithm(key) || !algorithms.includes(key)) continue
      if (digest.length !== DIGEST_LENGTHS[key]) {
        const reason = `the ${key} digest is not ${DIGEST_LENGTHS[key]} bytes long`
        invalid.push({ header, algorithm: key, reason })
      } else expected.push({ header, algorithm: key, digest })
    }
    // A field whose every digest is of an algorithm not taken checks nothing (§3.1 of the draft).
    if (
      expected.length === checked &&
      digests.size > 0 &&
      !invalid.some((i) => i.header === header)
    ) {
      for (const key of digests.keys()) {
        const reason = `${key} is not a supported hashing algorithm (${algorithms.join(', ')} are)`
        unsupported.push({ header, algorithm: key, reason })
      }
    }
  }
  if (invalid.length > 0) return invalidValues(invalid)
  if (unsupported.length > 0) return unsupportedAlgorithms(unsupported, algorithms)
  return expected
}

/**
 * The route's `preParsing` hook, put before every other (a content decoder among them): a
 * request with integrity fields has its content, as received, hashed on its way to the parser;
 * a field that cannot be checked is answered before the body is read.
 */
export function hashRequestBody(settings: DigestSettings): preParsingHookHandler {
  return function restwellDigestBody(request, _reply, payload, done) {
    if (
      request.headers['content-digest'] === undefined &&
      request.headers['repr-digest'] === undefined
    ) {
      done(null, payload)
      return
    }
    const expected = readIntegrity(request, settings.algorithms)
    if (!Array.isArray(expected)) {
      done(expected)
      return
    }
    if (expected.length === 0) {
      done(null, payload)
      return
    }
    const hashes = new Map(expected.map(({ algorithm }) => [algorithm, hashOf(algorithm)]))
    ;(request as Checked)[DIGEST_CHECK] = { expected, hashes }
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, next) {
        for (const hash of hashes.values()) hash.update(chunk)
        next(null, chunk)
      },
    })
    // An error of the request stream reaches the body reader through `tap`, which it listens to.
    pipeline(payload, tap, () => {})
    done(null, tap)
  }
}

/** Before the handler: the content read is compared with every digest the request stated. */
export const checkRequestDigests: RequestStep = function checkRequestDigests(request) {
  const check = (request as Checked)[DIGEST_CHECK]
  if (check === undefined) return undefined
  const made = new Map<Algorithm, Buffer>()
  for (const [algorithm, hash] of check.hashes) made.set(algorithm, hash.digest())
  const mismatched: RefusedDigest[] = []
  for (const { header, algorithm, digest } of check.expected) {
    if (!timingSafeEqual(made.get(algorithm) as Buffer, digest)) {
      mismatched.push({ header, algorithm, reason: mismatchReason(algorithm, digest) })
    }
  }
  return mismatched.length > 0 ? mismatchedValues(mismatched) : undefined
}
