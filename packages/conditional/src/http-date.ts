/** HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms. */

/** Longest field value read as a date; anything longer is not an HTTP-date. */
export const MAX_HTTP_DATE_LENGTH = 64

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
const LONG_DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']

/** Reads `count` ASCII digits at `at`; -1 when any is not a digit. */
function digits(value: string, at: number, count: number): number {
  let n = 0
  for (let i = at; i < at + count; i++) {
    const c = value.charCodeAt(i) - 0x30
    if (!(c >= 0 && c <= 9)) return -1
    n = n * 10 + c
  }
  return n
}

/** `HH:MM:SS` at `at` → seconds of the day, or -1. */
function timeOfDay(value: string, at: number): number {
  if (value[at + 2] !== ':' || value[at + 5] !== ':') return -1
  const h = digits(value, at, 2)
  const m = digits(value, at + 3, 2)
  const s = digits(value, at + 6, 2)
  if (h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 60) return -1
  return h * 3600 + m * 60 + s
}

/** Epoch milliseconds of a calendar date and time, or undefined when the day does not exist. */
function toEpoch(year: number, month: number, day: number, seconds: number): number | undefined {
  if (month < 0 || day < 1 || day > 31) return undefined
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999
  const date = new Date(0)
  date.setUTCFullYear(year, month, day)
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month) return undefined
  return date.getTime() + seconds * 1000
}

/** IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT` (exactly 29 characters). */
function imfFixdate(v: string): number | undefined {
  if (v.length !== 29 || !DAYS.includes(v.slice(0, 3)) || v.slice(3, 5) !== ', ') return undefined
  if (v[7] !== ' ' || v[11] !== ' ' || v[16] !== ' ' || v.slice(25) !== ' GMT') return undefined
  const day = digits(v, 5, 2)
  const year = digits(v, 12, 4)
  const seconds = timeOfDay(v, 17)
  if (day < 0 || year < 0 || seconds < 0) return undefined
  return toEpoch(year, MONTHS.indexOf(v.slice(8, 11)), day, seconds)
}

/**
 * RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`. A two-digit year more than 50 years in the
 * future is read as the most recent past year with those digits (RFC 9110 §5.6.7).
 */
function rfc850(v: string, now: number): number | undefined {
  const comma = v.indexOf(',')
  if (comma < 6 || !LONG_DAYS.includes(v.slice(0, comma))) return undefined
  const r = v.slice(comma + 1)
  if (r.length !== 23 || r[0] !== ' ' || r[3] !== '-' || r[7] !== '-' || r[10] !== ' ') {
    return undefined
  }
  if (r.slice(19) !== ' GMT') return undefined
  const day = digits(r, 1, 2)
  const yy = digits(r, 8, 2)
  const seconds = timeOfDay(r, 11)
  if (day < 0 || yy < 0 || seconds < 0) return undefined
  const thisYear = new Date(now).getUTCFullYear()
  let year = thisYear - (thisYear % 100) + yy
  if (year > thisYear + 50) year -= 100
  return toEpoch(year, MONTHS.indexOf(r.slice(4, 7)), day, seconds)
}

/** asctime: `Sun Nov  6 08:49:37 1994` (the day padded with a space). */
function asctime(v: string): number | undefined {
  if (v.length !== 24 || !DAYS.includes(v.slice(0, 3)) || v[3] !== ' ' || v[7] !== ' ') {
    return undefined
  }
  if (v[10] !== ' ' || v[19] !== ' ') return undefined
  const day = v[8] === ' ' ? digits(v, 9, 1) : digits(v, 8, 2)
  const seconds = timeOfDay(v, 11)
  const year = digits(v, 20, 4)
  if (day < 0 || seconds < 0 || year < 0) return undefined
  return toEpoch(year, MONTHS.indexOf(v.slice(4, 7)), day, seconds)
}

/**
 * Parses an HTTP-date in any of its three forms to epoch milliseconds; undefined for
 * anything else (an invalid date is ignored, RFC 9110 §13.1.3). Never throws.
 */
export function parseHttpDate(
  value: string | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === undefined || value.length > MAX_HTTP_DATE_LENGTH) return undefined
  const v = value.trim()
  if (v[3] === ',') return imfFixdate(v)
  if (v[3] === ' ') return asctime(v)
  return rfc850(v, now)
}

/** Formats epoch milliseconds as an IMF-fixdate (whole seconds). */
export function formatHttpDate(ms: number): string {
  return new Date(ms).toUTCString()
}

/** A date, a timestamp or a date string; several, for the latest of them (`toSeconds`). */
export type DateValue = Date | number | string | readonly (Date | number | string)[]

/**
 * Epoch milliseconds of a date, a timestamp or a date string, cut to whole seconds; of the
 * latest of several (a representation made of several stored parts); undefined when one is
 * invalid, or none is given.
 */
export function toSeconds(value: DateValue): number | undefined {
  if (typeof value === 'object' && !(value instanceof Date)) {
    let latest: number | undefined
    for (const one of value) {
      const ms = toSeconds(one)
      if (ms === undefined) return undefined
      if (latest === undefined || ms > latest) latest = ms
    }
    return latest
  }
  const ms =
    value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value)
  return Number.isFinite(ms) ? Math.floor(ms / 1000) * 1000 : undefined
}
