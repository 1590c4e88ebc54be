/** Version numbers as carried by the URL prefix (`/v<N>/`) and the query (`?version=<N>`). */

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
