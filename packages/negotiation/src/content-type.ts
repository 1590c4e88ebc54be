/** `Content-Type` (RFC 9110 §8.3): one media type with parameters. */
import { splitMediaType } from './accept.js'
import { parseList } from '@restwell/core/internal'

/** A parsed `Content-Type`. */
export interface ContentType {
  /** `type/subtype`, lowercased, without parameters. */
  essence: string
  /** Parameters, names lowercased. */
  params: [string, string][]
}

/**
 * Parses a `Content-Type` value; undefined when it is not exactly one `type/subtype` (no
 * wildcards) with well-formed parameters. Never throws; linear in the length.
 */
export function parseContentType(header: string): ContentType | undefined {
  const { elements, malformed } = parseList(header, 2)
  const element = elements[0]
  if (malformed > 0 || elements.length !== 1 || element === undefined || element.q !== 1) {
    return undefined
  }
  const split = splitMediaType(element.value)
  if (split === undefined || split[0] === '*' || split[1] === '*') return undefined
  return { essence: `${split[0]}/${split[1]}`, params: element.params }
}
