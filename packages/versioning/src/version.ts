/** Version numbers as carried by the URL prefix (`/v<N>/`) and the query (`?version=<N>`). */
import { joinUrl, withoutQueryParam } from '@restwell/reroute'

/** Longest version number read (digits); longer ones are not versions. */
export const MAX_VERSION_DIGITS = 9

/** A canonical non-negative integer (`0`, `7`, `12`; not `07`, `+1`, `1.0`), or undefined. */
export function parseVersionNumber(text: string): number | undefined {
  const length = text.length
  if (length === 0 || length > MAX_VERSION_DIGITS) return undefined
  if (length > 1 && text.charCodeAt(0) === 48) return undefined
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c < 48 || c > 57) return undefined
  }
  return Number(text)
}

/** The version of a `/v<N>` first path segment and the prefix's length, or undefined. */
export function prefixVersion(url: string): { version: number; length: number } | undefined {
  // Cheap rejection first: most URLs fail on the second or third character.
  if (url.charCodeAt(1) !== 118 || url.charCodeAt(0) !== 47) return undefined
  const first = url.charCodeAt(2)
  if (first < 48 || first > 57) return undefined
  let end = 2
  while (end < url.length && end <= MAX_VERSION_DIGITS + 2) {
    const c = url.charCodeAt(end)
    if (c === 47 || c === 63) break
    end++
  }
  const version = parseVersionNumber(url.slice(2, end))
  return version === undefined ? undefined : { version, length: end }
}

/** An unprefixed path under `/v<version>`: `/` is the version's root, `/v<N>`. */
export function underVersion(version: number, path: string): string {
  return `/v${version}${path === '/' ? '' : path}`
}

/**
 * `path` (which names a version by its `/v<N>` prefix) with `query`, less the version parameter
 * `parameter`: a `?version=` left beside the prefix would make the URL a 400
 * CONFLICTING_VERSIONS whenever the two differ. Other pairs are kept byte for byte (the caller
 * makes the URL a valid URI-Reference with `safePath`).
 */
export function versionedUrl(
  path: string,
  query: string | undefined,
  parameter: string | false,
): string {
  // As the carriers read it: the parameter counts only where its name is there unescaped.
  if (query === undefined || parameter === false || !query.includes(parameter)) {
    return joinUrl(path, query)
  }
  return joinUrl(path, withoutQueryParam(query, parameter))
}
