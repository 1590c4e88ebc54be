/** The hashing algorithms of integrity fields (RFC 9530 §5): the two with the status "Active". */
import { createHash } from 'node:crypto'

/** An algorithm key of the "Hash Algorithms for HTTP Digest Fields" registry with status Active. */
export type Algorithm = 'sha-256' | 'sha-512'

/** The Active algorithms, in the default order of preference, and the length of their digests. */
export const DIGEST_LENGTHS: Readonly<Record<Algorithm, number>> = {
  'sha-256': 32,
  'sha-512': 64,
}

/** The Active algorithms (RFC 9530 §5), most preferred first. */
export const ALGORITHMS: readonly Algorithm[] = ['sha-256', 'sha-512']

const NODE_NAMES: Readonly<Record<Algorithm, string>> = { 'sha-256': 'sha256', 'sha-512': 'sha512' }

/** Whether `key` names an Active algorithm. */
export function isAlgorithm(key: string): key is Algorithm {
  return key === 'sha-256' || key === 'sha-512'
}

/** The digest of `bytes` by `algorithm`. */
export function digestOf(algorithm: Algorithm, bytes: string | Uint8Array): Buffer {
  return createHash(NODE_NAMES[algorithm]).update(bytes).digest()
}

/** A running hash of `algorithm`, for bytes that arrive in chunks. */
export function hashOf(algorithm: Algorithm): ReturnType<typeof createHash> {
  return createHash(NODE_NAMES[algorithm])
}
