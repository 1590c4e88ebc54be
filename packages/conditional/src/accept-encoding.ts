/** Whether a request takes a content coding, from its `Accept-Encoding` (RFC 9110 §12.5.3). */
import { parseList, remembered } from '@restwell/core/internal'

/** Coding names as the ETag suffixes write them: lower case, `x-gzip` as `gzip` (§8.4.1.3). */
function codingName(value: string): string {
  const name = value.toLowerCase()
  return name === 'x-gzip' ? 'gzip' : name === 'x-compress' ? 'compress' : name
}

/**
 * True when `Accept-Encoding` accepts `coding` (a lower-case name): a member naming it, else a
 * `*`, with a positive weight. A request without the field accepts no coding, as compression
 * sends it identity bytes. Malformed members are skipped.
 */
export function acceptsCoding(header: string | undefined, coding: string): boolean {
  if (header === undefined) return false
  return remembered(verdicts, `${coding}\n${header}`, () => judge(header, coding))
}

/** Verdicts by coding and header value: a revalidating client sends the same field each time. */
const verdicts = new Map<string, boolean>()

function judge(header: string, coding: string): boolean {
  let named = false
  let wildcard = 0
  for (const element of parseList(header).elements) {
    const name = codingName(element.value)
    if (name === coding) {
      if (element.q === 0) return false
      named = true
    } else if (name === '*') {
      wildcard = Math.max(wildcard, element.q)
    }
  }
  return named || wildcard > 0
}
