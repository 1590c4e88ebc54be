/** Byte ranges (RFC 9110 §14): the Range parser, satisfiability, coalescing and multipart/byteranges. */
import { isOws } from '@restwell/core/internal'
import { randomBytes } from 'node:crypto'

/** One range-spec as sent: `first-last`, `first-` (last undefined) or `-suffix` (first undefined). */
export interface RangeSpec {
  first?: number
  last?: number
  suffix?: number
}

/** A satisfiable range, inclusive offsets within the representation. */
export interface ByteRange {
  start: number
  end: number
}

/** Default bound on the number of range-specs in one Range header. */
export const DEFAULT_MAX_RANGES = 8
/** Longest Range field value read; a longer one is ignored. */
export const MAX_RANGE_HEADER_LENGTH = 1024
/** Longest run of digits read as one position (past 2^53 is not a real offset). */
const MAX_DIGITS = 16

/** Digits from `from` to `to` (exclusive) → number, or -1 when empty, too long or not all digits. */
function position(value: string, from: number, to: number): number {
  if (from >= to || to - from > MAX_DIGITS) return -1
  let n = 0
  for (let i = from; i < to; i++) {
    const c = value.charCodeAt(i) - 0x30
    if (!(c >= 0 && c <= 9)) return -1
    n = n * 10 + c
  }
  return n
}

/**
 * Parses `Range: bytes=<range-set>`. Returns undefined when the header is absent, not in the
 * `bytes` unit, syntactically invalid (a range with last < first included) or holds more than
 * `maxRanges` range-specs: such a header is ignored (RFC 9110 §14.2). Linear in its length.
 */
export function parseRange(
  value: string | undefined,
  maxRanges: number = DEFAULT_MAX_RANGES,
): RangeSpec[] | undefined {
  if (value === undefined || value.length > MAX_RANGE_HEADER_LENGTH) return undefined
  const eq = value.indexOf('=')
  if (eq === -1 || value.slice(0, eq).trim().toLowerCase() !== 'bytes') return undefined
  const specs: RangeSpec[] = []
  let i = eq + 1
  const end = value.length
  while (i <= end) {
    let comma = value.indexOf(',', i)
    if (comma === -1) comma = end
    let a = i
    let b = comma
    while (a < b && isOws(value.charCodeAt(a))) a++
    while (b > a && isOws(value.charCodeAt(b - 1))) b--
    i = comma + 1
    if (a === b) continue // empty list member
    if (specs.length === maxRanges) return undefined
    const dash = value.indexOf('-', a)
    if (dash === -1 || dash >= b) return undefined
    if (dash === a) {
      const suffix = position(value, a + 1, b)
      if (suffix < 0) return undefined
      specs.push({ suffix })
      continue
    }
    const first = position(value, a, dash)
    if (first < 0) return undefined
    if (dash + 1 === b) {
      specs.push({ first })
      continue
    }
    const last = position(value, dash + 1, b)
    if (last < 0 || last < first) return undefined
    specs.push({ first, last })
  }
  return specs.length === 0 ? undefined : specs
}

/** A satisfiable range and the place, in the Range header, of its earliest member. */
interface Placed extends ByteRange {
  at: number
}

/**
 * The satisfiable ranges of a range set over a representation of `total` bytes, with
 * overlapping or adjacent ranges merged (so the parts never add up to more bytes than the
 * representation), in the order the client asked for them (RFC 9110 §15.3.7.2): a merged range
 * takes the place of its earliest member. Empty when none is satisfiable (→ 416).
 */
export function resolveRanges(specs: readonly RangeSpec[], total: number): ByteRange[] {
  const ranges: Placed[] = []
  for (let at = 0; at < specs.length; at++) {
    const spec = specs[at] as RangeSpec
    if (spec.first === undefined) {
      const suffix = spec.suffix as number
      if (suffix > 0 && total > 0)
        ranges.push({ start: Math.max(0, total - suffix), end: total - 1, at })
    } else if (spec.first < total) {
      const last = spec.last === undefined ? total - 1 : Math.min(spec.last, total - 1)
      ranges.push({ start: spec.first, end: last, at })
    }
  }
  ranges.sort((x, y) => x.start - y.start)
  const merged: Placed[] = []
  for (const range of ranges) {
    const previous = merged[merged.length - 1]
    if (previous !== undefined && range.start <= previous.end + 1) {
      previous.end = Math.max(previous.end, range.end)
      previous.at = Math.min(previous.at, range.at)
    } else {
      merged.push({ start: range.start, end: range.end, at: range.at })
    }
  }
  merged.sort((x, y) => x.at - y.at)
  return merged.map(({ start, end }) => ({ start, end }))
}

/** `bytes <start>-<end>/<total>` */
export function contentRange(range: ByteRange, total: number): string {
  return `bytes ${range.start}-${range.end}/${total}`
}

/** A multipart/byteranges body (RFC 9110 §14.6) and its Content-Type. */
export interface MultipartBody {
  contentType: string
  body: Buffer
}

/** Builds a multipart/byteranges body from the parts of `bytes`. */
export function multipartByteranges(
  bytes: Buffer,
  ranges: readonly ByteRange[],
  partType: string | undefined,
): MultipartBody {
  const boundary = randomBytes(12).toString('hex')
  const chunks: Buffer[] = []
  const typeLine = partType === undefined ? '' : `Content-Type: ${partType}\r\n`
  for (const range of ranges) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\n${typeLine}Content-Range: ${contentRange(range, bytes.length)}\r\n\r\n`,
      ),
      bytes.subarray(range.start, range.end + 1),
      Buffer.from('\r\n'),
    )
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return {
    contentType: `multipart/byteranges; boundary=${boundary}`,
    body: Buffer.concat(chunks),
  }
}
