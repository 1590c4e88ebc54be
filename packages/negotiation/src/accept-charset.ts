/** `Accept-Charset` (RFC 9110 §12.5.2): restwell serves UTF-8 only. */
import { isToken, parseList } from '@restwell/core/internal'

/**
 * Whether an `Accept-Charset` value lets the server send UTF-8: the weight of `utf-8` if it is
 * listed, else that of `*`, else 0 (RFC 9110: `*` matches every charset not mentioned).
 * Malformed elements are ignored; a value with no well-formed element is ignored (true).
 * Never throws; linear in the length.
 */
export function acceptsUtf8(header: string): boolean {
  let utf8: number | undefined
  let star: number | undefined
  let valid = 0
  for (const element of parseList(header).elements) {
    if (!isToken(element.value)) continue
    valid++
    const name = element.value.toLowerCase()
    if (name === 'utf-8') utf8 ??= element.q
    else if (name === '*') star ??= element.q
  }
  if (valid === 0) return true
  return (utf8 ?? star ?? 0) > 0
}
