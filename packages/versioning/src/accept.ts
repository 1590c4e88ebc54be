/**
 * The version carried by `Accept: application/vnd.api.v<N>+json` (RFC 9110 §12.5.1): media
 * ranges with q-values, read in one linear pass, at most `MAX_ACCEPT_RANGES` of them.
 */
import { parseVersionNumber } from './version.js'

/** Most media ranges read from one Accept header; the rest are ignored. */
export const MAX_ACCEPT_RANGES = 64

const VND_PREFIX = 'application/vnd.api.v'
const VND_SUFFIX = '+json'

/** The vendor media type of one version. */
export function versionMediaType(version: number): string {
  return `${VND_PREFIX}${version}${VND_SUFFIX}`
}

/** One version an Accept header names, with its quality. */
export interface AcceptedVersion {
  version: number
  q: number
}

/** What an Accept header says about versions. */
export interface AcceptVersions {
  /** Every `application/vnd.api.v<N>+json` range, in header order. */
  versions: AcceptedVersion[]
  /** True when another media range (`application/json`, `*\/*`, ...) is acceptable (q > 0). */
  other: boolean
}

/** A qvalue (RFC 9110 §12.4.2): `0`, `0.5`, `1.000`; undefined when malformed. */
export function parseQuality(text: string): number | undefined {
  const length = text.length
  if (length === 0 || length > 5) return undefined
  const head = text.charCodeAt(0)
  if (head !== 48 && head !== 49) return undefined
  if (length === 1) return head - 48
  if (text.charCodeAt(1) !== 46) return undefined
  for (let i = 2; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c < 48 || c > 57 || (head === 49 && c !== 48)) return undefined
  }
  return Number(text)
}

/** The quality of one media range's parameters (`; q=0.5; level=1`): 1 when absent. */
function qualityOf(params: string): number | undefined {
  let q = 1
  let start = 0
  while (start < params.length) {
    let end = params.indexOf(';', start)
    if (end === -1) end = params.length
    const param = params.slice(start, end).trim()
    if (param.length > 1 && (param[0] === 'q' || param[0] === 'Q') && param[1] === '=') {
      const parsed = parseQuality(param.slice(2))
      if (parsed === undefined) return undefined
      q = parsed
    }
    start = end + 1
  }
  return q
}

/**
 * Reads the versions an Accept header asks for. Never throws; a malformed range (bad q) is
 * skipped, as a cache or server would skip it.
 */
export function parseAcceptVersions(header: string): AcceptVersions {
  const result: AcceptVersions = { versions: [], other: false }
  let start = 0
  for (let n = 0; n < MAX_ACCEPT_RANGES && start < header.length; n++) {
    let end = header.indexOf(',', start)
    if (end === -1) end = header.length
    const range = header.slice(start, end)
    start = end + 1
    const semi = range.indexOf(';')
    const type = (semi === -1 ? range : range.slice(0, semi)).trim().toLowerCase()
    if (type === '') continue
    const q = semi === -1 ? 1 : qualityOf(range.slice(semi + 1))
    if (q === undefined) continue
    const version =
      type.startsWith(VND_PREFIX) && type.endsWith(VND_SUFFIX)
        ? parseVersionNumber(type.slice(VND_PREFIX.length, type.length - VND_SUFFIX.length))
        : undefined
    if (version !== undefined) result.versions.push({ version, q })
    else if (q > 0) result.other = true
  }
  return result
}

/**
 * The best version among `supported` (highest q, then highest version), or undefined when no
 * supported version has q > 0.
 */
export function bestVersion(
  accepted: readonly AcceptedVersion[],
  supported: (version: number) => boolean,
): number | undefined {
  let best: AcceptedVersion | undefined
  for (const entry of accepted) {
    if (entry.q === 0 || !supported(entry.version)) continue
    if (
      best === undefined ||
      entry.q > best.q ||
      (entry.q === best.q && entry.version > best.version)
    ) {
      best = entry
    }
  }
  return best?.version
}

/** Most versions an error message names. */
export const MAX_NAMED_VERSIONS = 8

/**
 * The versions an Accept header asks for (q > 0), each once, in header order: at most
 * `MAX_NAMED_VERSIONS`, `more` telling whether others were left out. For error messages.
 */
export function askedVersions(accepted: readonly AcceptedVersion[]): {
  versions: number[]
  more: boolean
} {
  const versions: number[] = []
  for (const { version, q } of accepted) {
    if (q === 0 || versions.includes(version)) continue
    if (versions.length === MAX_NAMED_VERSIONS) return { versions, more: true }
    versions.push(version)
  }
  return { versions, more: false }
}
