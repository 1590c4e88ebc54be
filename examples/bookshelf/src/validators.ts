/**
 * Entity tags from stored versions (no hashing), and optimistic concurrency for writes.
 *
 * A row's `version` goes up by one on every write; it is the ETag of the JSON representation
 * (`"<version>"`), and restwell gives each other negotiated representation a tag of its own
 * (`"<version>;xml"`, `"<version>;json;de"`): a strong tag names one representation only
 * (RFC 9110 §8.8.3). A write's `If-Match` holds with the tag of any representation of the
 * current version: the client holds the current state whatever form it read.
 */
import type { FastifyRequest } from 'fastify'
import type { Stamp } from './repository.js'

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** The version a write's preconditions were checked against, for `update ... where version = $n`. */
const checkedVersions = new WeakMap<FastifyRequest, number>()

export function checkedVersion(request: FastifyRequest): number | undefined {
  return checkedVersions.get(request)
}

/**
 * A `getValidator` for `config.conditional` over a `Stamp` lookup: the version and Last-Modified;
 * a write remembers the version it was checked against.
 */
export function stampValidator(
  lookup: (request: FastifyRequest) => Promise<Stamp | undefined>,
): (request: FastifyRequest) => Promise<{ etag: number; lastModified: Date } | null> {
  return async (request) => {
    const stamp = await lookup(request)
    if (stamp === undefined) return null
    if (WRITE_METHODS.has(request.method)) checkedVersions.set(request, stamp.version)
    return { etag: stamp.version, lastModified: stamp.updatedAt }
  }
}
