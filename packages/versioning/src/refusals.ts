/**
 * The 4xx answers of the version carriers: a version not supported, an Accept that names only
 * such versions, and carriers that disagree. Every `UNKNOWN_VERSION` names the supported ones.
 */
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'
import { type AcceptedVersion, askedVersions, versionMediaType } from './accept.js'
import type { VersionRegistry } from './registry.js'

/** `UNKNOWN_VERSION`: `message` (what was refused), then the supported versions. */
export function unknownVersion(
  registry: VersionRegistry,
  status: 'notFound' | 'notAcceptable' | 'badRequest',
  message: string,
  field: string,
): HttpError {
  const { list } = registry
  // An app with no `/v<N>` routes (yet) serves no version: said so, with no empty `Accept`.
  const named = list.length > 0 ? list.join(', ') : 'none'
  return httpErrors[status](`${message}; supported versions: ${named}`, {
    code: ErrorCode.UNKNOWN_VERSION,
    details: [{ field, message: `supported versions: ${named}`, code: ErrorCode.UNKNOWN_VERSION }],
    headers:
      status === 'notAcceptable' && list.length > 0
        ? { accept: list.map(versionMediaType).join(', ') }
        : {},
  })
}

/**
 * The 406 for an Accept whose versioned ranges name no version that can be served (and that
 * accepts nothing else): the versions it asks for, all unsupported, or, when it gives every
 * version it names q=0, that.
 */
export function unacceptableVersions(
  registry: VersionRegistry,
  accepted: readonly AcceptedVersion[],
): HttpError {
  const { versions, more } = askedVersions(accepted)
  const named = `${versions.join(', ')}${more ? ', …' : ''}`
  const message =
    versions.length === 0
      ? 'Accept accepts none of the versions it names (q=0)'
      : versions.length === 1
        ? `Version ${named} in Accept is not supported`
        : `Versions ${named} in Accept are not supported`
  return unknownVersion(registry, 'notAcceptable', message, 'headers/accept')
}

/** `CONFLICTING_VERSIONS`: carrier `b` names another version than `a`. */
export function conflicting(a: string, b: string, field: string): HttpError {
  return httpErrors.badRequest(`Conflicting versions: ${a} and ${b}`, {
    code: ErrorCode.CONFLICTING_VERSIONS,
    details: [{ field, message: `disagrees with ${a}`, code: ErrorCode.CONFLICTING_VERSIONS }],
  })
}
