import fc from 'fast-check'
import { test } from 'tap'
import {
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

test('resolveRanges: satisfiability, clamping, sorting and merging', async (t) => {
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
      { start: 0, end: 3 },
      { start: 6, end: 9 },
    ],
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

test('property: resolved ranges are sorted, disjoint, inside the body, never more bytes than it', async () => {
  fc.assert(
    fc.property(fc.array(spec, { maxLength: 20 }), fc.nat(300), (specs, total) => {
      const ranges = resolveRanges(specs, total)
      let covered = 0
      let previousEnd = -2
      for (const r of ranges) {
        if (r.start < 0 || r.end >= total || r.start > r.end || r.start <= previousEnd + 1)
          return false
        covered += r.end - r.start + 1
        previousEnd = r.end
      }
      return covered <= total
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
