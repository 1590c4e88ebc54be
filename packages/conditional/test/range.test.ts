import fc from 'fast-check'
import { test } from 'tap'
import {
  type ByteRange,
  contentRange,
  DEFAULT_MAX_RANGES,
  MAX_RANGE_HEADER_LENGTH,
  multipartByteranges,
  parseRange,
  type RangeSpec,
  resolveRanges,
} from '../src/index.js'

test('parses the three range-spec forms, OWS and empty members', async (t) => {
  t.same(parseRange('bytes=0-499'), [{ first: 0, last: 499 }])
  t.same(parseRange('bytes=500-'), [{ first: 500 }])
  t.same(parseRange('bytes=-500'), [{ suffix: 500 }])
  t.same(parseRange('Bytes = 0-0 , ,\t-1,'), [{ first: 0, last: 0 }, { suffix: 1 }])
})

test('invalid or foreign headers are undefined (ignored)', async (t) => {
  for (const bad of [
    undefined,
    'bytes',
    'bytes=',
    'bytes=,',
    'items=0-1',
    'bytes=1',
    'bytes=a-1',
    'bytes=1-a',
    'bytes=-a',
    'bytes=-',
    'bytes=5-4',
    'bytes=1 -2',
    `bytes=0-${'9'.repeat(17)}`,
    `bytes=${'0-0,'.repeat(300)}`,
  ]) {
    t.equal(parseRange(bad), undefined, String(bad))
  }
  t.equal(parseRange('bytes=0-0,1-1,2-2', 2), undefined, 'more than maxRanges')
  t.same(parseRange('bytes=0-0,1-1', 2)?.length, 2)
  t.equal(DEFAULT_MAX_RANGES, 8)
})

test('resolveRanges: satisfiability, clamping, merging, in the order asked', async (t) => {
  t.same(resolveRanges([{ first: 0, last: 9 }], 5), [{ start: 0, end: 4 }])
  t.same(resolveRanges([{ first: 5 }], 5), [])
  t.same(resolveRanges([{ suffix: 0 }], 5), [])
  t.same(resolveRanges([{ suffix: 9 }], 5), [{ start: 0, end: 4 }])
  t.same(resolveRanges([{ suffix: 2 }], 0), [])
  t.same(
    resolveRanges(
      [{ first: 8 }, { first: 0, last: 1 }, { first: 2, last: 3 }, { first: 6, last: 8 }],
      10,
    ),
    [
      { start: 6, end: 9 },
      { start: 0, end: 3 },
    ],
    'a merged range takes the place of its earliest member',
  )
  t.same(
    resolveRanges(
      [
        { first: 500, last: 599 },
        { first: 0, last: 99 },
      ],
      1000,
    ),
    [
      { start: 500, end: 599 },
      { start: 0, end: 99 },
    ],
    'parts in the order the client asked (RFC 9110 §15.3.7.2)',
  )
  t.same(
    resolveRanges(
      [{ suffix: 5 }, { first: 20, last: 29 }, { first: 0, last: 4 }, { first: 28 }],
      100,
    ),
    [
      { start: 20, end: 99 },
      { start: 0, end: 4 },
    ],
    'the suffix (asked first) and the ranges merged with it go first, as one part',
  )
  t.equal(contentRange({ start: 1, end: 2 }, 3), 'bytes 1-2/3')
})

const spec: fc.Arbitrary<RangeSpec> = fc.oneof(
  fc
    .tuple(fc.nat(200), fc.nat(200))
    .map(([a, b]) => ({ first: Math.min(a, b), last: Math.max(a, b) })),
  fc.nat(200).map((first) => ({ first })),
  fc.nat(200).map((suffix) => ({ suffix })),
)
const format = (s: RangeSpec): string =>
  s.first === undefined ? `-${s.suffix}` : `${s.first}-${s.last ?? ''}`

test('property: formatted range sets parse back to the same specs', async () => {
  fc.assert(
    fc.property(fc.array(spec, { minLength: 1, maxLength: DEFAULT_MAX_RANGES }), (specs) => {
      const parsed = parseRange(`bytes=${specs.map(format).join(', ')}`)
      return JSON.stringify(parsed) === JSON.stringify(specs)
    }),
  )
})

/** The bytes one spec asks for in a body of `total` bytes, or undefined when unsatisfiable. */
function wanted(spec: RangeSpec, total: number): ByteRange | undefined {
  if (spec.first === undefined) {
    const suffix = spec.suffix as number
    return suffix > 0 && total > 0
      ? { start: Math.max(0, total - suffix), end: total - 1 }
      : undefined
  }
  if (spec.first >= total) return undefined
  return { start: spec.first, end: Math.min(spec.last ?? total - 1, total - 1) }
}

test('property: resolved ranges are disjoint, not adjacent, inside the body, never more bytes than it', async () => {
  fc.assert(
    fc.property(fc.array(spec, { maxLength: 20 }), fc.nat(300), (specs, total) => {
      const ranges = resolveRanges(specs, total)
      let covered = 0
      for (const [i, r] of ranges.entries()) {
        if (r.start < 0 || r.end >= total || r.start > r.end) return false
        for (const other of ranges.slice(i + 1)) {
          if (r.start <= other.end + 1 && other.start <= r.end + 1) return false
        }
        covered += r.end - r.start + 1
      }
      return covered <= total
    }),
  )
})

test('property: resolved ranges cover exactly the satisfiable specs, in the order asked', async () => {
  fc.assert(
    fc.property(fc.array(spec, { maxLength: 20 }), fc.nat(300), (specs, total) => {
      const ranges = resolveRanges(specs, total)
      // Each satisfiable spec lies in exactly one part; a part is its members' union.
      const firstMember: number[] = ranges.map(() => Number.POSITIVE_INFINITY)
      const lowest: number[] = ranges.map(() => Number.POSITIVE_INFINITY)
      const highest: number[] = ranges.map(() => -1)
      for (const [at, s] of specs.entries()) {
        const w = wanted(s, total)
        if (w === undefined) continue
        const holders = ranges.flatMap((r, k) => (r.start <= w.start && w.end <= r.end ? [k] : []))
        const k = holders[0]
        if (holders.length !== 1 || k === undefined) return false
        firstMember[k] = Math.min(firstMember[k] as number, at)
        lowest[k] = Math.min(lowest[k] as number, w.start)
        highest[k] = Math.max(highest[k] as number, w.end)
      }
      for (const [k, r] of ranges.entries()) {
        if (r.start !== lowest[k] || r.end !== highest[k]) return false
        // The parts follow the Range header: each at the place of its earliest member.
        if (k > 0 && (firstMember[k - 1] as number) >= (firstMember[k] as number)) return false
      }
      return true
    }),
  )
})

test('property: any string parses without throwing, within the bounds', async () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.string({ unit: 'binary' }),
        fc.string({
          unit: fc.constantFrom('b', 'y', 't', 'e', 's', '=', '-', ',', ' ', '1', '0'),
          maxLength: 80,
        }),
      ),
      fc.integer({ min: 1, max: 10 }),
      (value, max) => {
        const parsed = parseRange(value, max)
        return parsed === undefined || (parsed.length >= 1 && parsed.length <= max)
      },
    ),
    { numRuns: 2000 },
  )
})

// No timing assertion: a backtracking parser would not finish these within the test timeout.
test('parsing is linear and bounded: a long hostile header is refused', async (t) => {
  t.equal(parseRange(`bytes=${'-'.repeat(MAX_RANGE_HEADER_LENGTH)}`), undefined)
  t.equal(parseRange(`bytes=${'1'.repeat(1000)}`), undefined)
  t.equal(parseRange(`bytes=${'0-0,'.repeat(100)}`, 1000)?.length, 100)
})

test('multipart/byteranges body', async (t) => {
  const body = multipartByteranges(
    Buffer.from('abcdef'),
    [
      { start: 0, end: 0 },
      { start: 4, end: 5 },
    ],
    undefined,
  )
  const boundary = body.contentType.split('boundary=')[1]
  t.equal(
    body.body.toString(),
    `--${boundary}\r\nContent-Range: bytes 0-0/6\r\n\r\na\r\n--${boundary}\r\nContent-Range: bytes 4-5/6\r\n\r\nef\r\n--${boundary}--\r\n`,
  )
})
