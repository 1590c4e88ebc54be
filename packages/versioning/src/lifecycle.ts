/** Deprecation (RFC 9745), Sunset (RFC 8594) and successor links of retired versions. */

/** RFC 9745 §2.1: a Structured Field Date, `@<unix seconds>`. */
export function deprecationValue(date: Date): string {
  return `@${Math.floor(date.getTime() / 1000)}`
}

/** RFC 8594 §3: an HTTP-date (IMF-fixdate), `Sun, 06 Nov 1994 08:49:37 GMT`. */
export function sunsetValue(date: Date): string {
  return date.toUTCString()
}

/** A date given as a `Date` or a string `Date.parse` understands (ISO 8601, IMF-fixdate). */
export function toDate(value: string | Date): Date | undefined {
  const date = value instanceof Date ? value : new Date(value)
  return Number.isNaN(date.getTime()) ? undefined : date
}

/** One Link header field value: `<target>; rel="relation"`. */
export function linkValue(target: string, relation: string): string {
  return `<${target}>; rel="${relation}"`
}
