/** URL helpers shared by the rewriters: split, query parameters, without backtracking regexes. */

/** Most query parameters looked at in one URL; the rest are kept but not inspected. */
export const MAX_QUERY_PARAMS = 256

/** The path and the query (without `?`, or undefined when there is none) of a request URL. */
export function splitUrl(url: string): { path: string; query: string | undefined } {
  const q = url.indexOf('?')
  return q === -1
    ? { path: url, query: undefined }
    : { path: url.slice(0, q), query: url.slice(q + 1) }
}

function decodeComponent(text: string): string {
  if (text.indexOf('%') === -1 && text.indexOf('+') === -1) return text
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

/** The decoded values of every `name` parameter in a query string (first `MAX_QUERY_PARAMS` pairs). */
export function queryValues(query: string, name: string): string[] {
  const values: string[] = []
  let start = 0
  for (let n = 0; n < MAX_QUERY_PARAMS && start <= query.length; n++) {
    let end = query.indexOf('&', start)
    if (end === -1) end = query.length
    const eq = query.indexOf('=', start)
    const keyEnd = eq === -1 || eq > end ? end : eq
    if (decodeComponent(query.slice(start, keyEnd)) === name) {
      values.push(keyEnd === end ? '' : decodeComponent(query.slice(keyEnd + 1, end)))
    }
    start = end + 1
  }
  return values
}

/** The query string without any `name` parameter; other pairs are kept byte for byte. */
export function withoutQueryParam(query: string, name: string): string {
  const kept: string[] = []
  let start = 0
  while (start <= query.length) {
    let end = query.indexOf('&', start)
    if (end === -1) end = query.length
    const eq = query.indexOf('=', start)
    const keyEnd = eq === -1 || eq > end ? end : eq
    const pair = query.slice(start, end)
    if (pair !== '' && decodeComponent(query.slice(start, keyEnd)) !== name) kept.push(pair)
    start = end + 1
  }
  return kept.join('&')
}

/** Joins a path and a query string (no `?` when the query is empty or undefined). */
export function joinUrl(path: string, query: string | undefined): string {
  return query === undefined || query === '' ? path : `${path}?${query}`
}
