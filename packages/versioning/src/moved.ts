/** Moved version paths: the longest configured old path prefix a request path starts with. */

export interface MovedPath {
  from: string
  to: string
}

/** Normalizes the map: no trailing slash, longest `from` first. */
export function compileMoved(map: Readonly<Record<string, string>>): MovedPath[] {
  const strip = (p: string): string => (p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p)
  return Object.entries(map)
    .map(([from, to]) => ({ from: strip(from), to: strip(to) }))
    .sort((a, b) => b.from.length - a.from.length)
}

/**
 * `rest` less its leading `/` and `\` (and the tab, LF and CR a browser removes from a URL):
 * after a `to` of `/`, one of them would make the Location a network-path reference
 * (`//host/...`, RFC 3986 §4.2; browsers read `/\host` and `///host` the same way).
 */
function withoutLeadingSeparators(rest: string): string {
  let start = 0
  while (start < rest.length) {
    const c = rest.charCodeAt(start)
    // '/' 47, '\' 92, tab 9, LF 10, CR 13
    if (c !== 47 && c !== 92 && c !== 9 && c !== 10 && c !== 13) break
    start++
  }
  return rest.slice(start)
}

/**
 * Where a path has moved (with the rest of the path appended), or undefined. The result never
 * starts with `//` or `/\`, whatever the request path holds (`moved` targets and sources are
 * refused at registration when they do): after a target `/`, the rest's leading slashes are
 * collapsed into the target's (`/old//evil.example/x` → `/evil.example/x`).
 */
export function movedLocation(moved: readonly MovedPath[], path: string): string | undefined {
  for (const { from, to } of moved) {
    if (path === from) return to
    if (path.startsWith(from) && path.charCodeAt(from.length) === 47) {
      const rest = path.slice(from.length)
      return to === '/' ? `/${withoutLeadingSeparators(rest)}` : to + rest
    }
  }
  return undefined
}
