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

/** Where a path has moved (with the rest of the path appended), or undefined. */
export function movedLocation(moved: readonly MovedPath[], path: string): string | undefined {
  for (const { from, to } of moved) {
    if (path === from) return to
    if (path.startsWith(from) && path.charCodeAt(from.length) === 47) {
      return to + path.slice(from.length)
    }
  }
  return undefined
}
