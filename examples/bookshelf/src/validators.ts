/**
 * Entity tags from stored versions (no hashing), one per representation, and optimistic
 * concurrency for writes.
 *
 * A row's `version` goes up by one on every write. The JSON representation's strong ETag is
 * `"<version>"`; another negotiated representation of the same version (XML, HAL, ... or another
 * language) gets `"<version>-<format>[-<language>]"`, because a strong tag must differ between
 * representations (RFC 9110 §8.8.3). For a write, any representation's tag of the current
 * version satisfies `If-Match`: the client holds the current state whatever format it read.
 */
import type { FastifyRequest } from 'fastify'
import type { Stamp } from './repository.js'

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
/** Most `If-Match` members looked at (the conditional plugin reads 64 too). */
const MAX_MEMBERS = 64

export const DEFAULT_LANGUAGE = 'en'

interface Negotiated {
  format?: string | undefined
  language?: string | undefined
}

/** `request.negotiated` when `@restwell/negotiation` runs, else nothing (plain JSON). */
function negotiatedOf(request: FastifyRequest): Negotiated | null | undefined {
  return (request as unknown as { negotiated?: Negotiated | null }).negotiated
}

/** The ETag (without quotes) of the representation this request gets of `version`. */
export function representationTag(version: number, request: FastifyRequest): string {
  const negotiated = negotiatedOf(request)
  let tag = String(version)
  const format = negotiated?.format
  if (format !== undefined && format !== 'json') tag += `-${format}`
  const language = negotiated?.language
  if (language !== undefined && language !== DEFAULT_LANGUAGE) tag += `-${language.toLowerCase()}`
  return tag
}

/**
 * The member of `If-Match` that names a representation of `version` (`"7"`, `"7-xml"`,
 * `"7-hal-de"`), unquoted; undefined when none does. One linear pass, bounded.
 */
export function heldTagOf(ifMatch: string | undefined, version: number): string | undefined {
  if (ifMatch === undefined) return undefined
  const wanted = String(version)
  let members = 0
  for (const raw of ifMatch.split(',')) {
    if (++members > MAX_MEMBERS) break
    const member = raw.trim()
    if (member.length < 3 || member[0] !== '"' || member[member.length - 1] !== '"') continue
    const opaque = member.slice(1, -1)
    if (opaque === wanted) return opaque
    if (opaque.startsWith(`${wanted}-`) && /^[a-z0-9-]+$/.test(opaque.slice(wanted.length + 1))) {
      return opaque
    }
  }
  return undefined
}

/** The version a write's preconditions were checked against, for `update ... where version = $n`. */
const checkedVersions = new WeakMap<FastifyRequest, number>()

export function checkedVersion(request: FastifyRequest): number | undefined {
  return checkedVersions.get(request)
}

/**
 * A `getValidator` for `config.conditional` over a `Stamp` lookup: reads give the
 * representation's tag and Last-Modified; writes remember the version they were checked
 * against and accept the tag of any representation of it.
 */
export function stampValidator(
  lookup: (request: FastifyRequest) => Promise<Stamp | undefined>,
): (request: FastifyRequest) => Promise<{ etag: string; lastModified: Date } | null> {
  return async (request) => {
    const stamp = await lookup(request)
    if (stamp === undefined) return null
    if (!WRITE_METHODS.has(request.method)) {
      return { etag: representationTag(stamp.version, request), lastModified: stamp.updatedAt }
    }
    checkedVersions.set(request, stamp.version)
    const header = request.headers['if-match']
    const held = heldTagOf(Array.isArray(header) ? header.join(',') : header, stamp.version)
    return { etag: held ?? String(stamp.version), lastModified: stamp.updatedAt }
  }
}
