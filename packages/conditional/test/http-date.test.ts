import fc from 'fast-check'
import { test } from 'tap'
import { formatHttpDate, MAX_HTTP_DATE_LENGTH, parseHttpDate, toSeconds } from '../src/index.js'

const EPOCH = Date.UTC(1994, 10, 6, 8, 49, 37)
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const pad = (n: number, w = 2): string => String(n).padStart(w, '0')

function rfc850(ms: number): string {
  const d = new Date(ms)
  return `${LONG[d.getUTCDay()]}, ${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${pad(d.getUTCFullYear() % 100)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} GMT`
}
function asctime(ms: number): string {
  const d = new Date(ms)
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${d.getUTCFullYear()}`
}

test('the three forms of RFC 9110 §5.6.7', async (t) => {
  t.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), EPOCH)
  t.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(2026, 0, 1)), EPOCH)
  t.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), EPOCH)
  t.equal(parseHttpDate('Sun Nov 16 08:49:37 1994'), EPOCH + 10 * 86_400_000)
  t.equal(parseHttpDate(' Sun, 06 Nov 1994 08:49:37 GMT '), EPOCH, 'surrounding OWS')
  const yearOne = new Date(0)
  yearOne.setUTCFullYear(1, 0, 1)
  t.equal(parseHttpDate('Mon, 01 Jan 0001 00:00:00 GMT'), yearOne.getTime(), 'years below 100 stay')
  t.equal(formatHttpDate(EPOCH), 'Sun, 06 Nov 1994 08:49:37 GMT')
})

test('RFC 850 two-digit years: more than 50 years ahead means the past century', async (t) => {
  const now = Date.UTC(2026, 5, 1)
  t.equal(
    new Date(parseHttpDate('Monday, 01-Jan-76 00:00:00 GMT', now) as number).getUTCFullYear(),
    2076,
  )
  t.equal(
    new Date(parseHttpDate('Friday, 01-Jan-77 00:00:00 GMT', now) as number).getUTCFullYear(),
    1977,
  )
  t.equal(
    new Date(parseHttpDate('Thursday, 01-Jan-26 00:00:00 GMT', now) as number).getUTCFullYear(),
    2026,
  )
})

test('invalid dates are undefined (ignored), never thrown on', async (t) => {
  for (const bad of [
    undefined,
    '',
    'yesterday',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 31 Feb 1994 08:49:37 GMT',
    'Sun, 06 Foo 1994 08:49:37 GMT',
    'Xyz, 06 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 06 Nov 1994 08:49:61 GMT',
    'Sun, 06 Nov 1994 08-49-37 GMT',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun,_06 Nov 1994 08:49:37 GMT',
    'Sun, 06_Nov 1994 08:49:37 GMT',
    'Sun, 00 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 19x4 08:49:37 GMT',
    'Someday, 06-Nov-94 08:49:37 GMT',
    'Sunday, 06-Nov-94 08:49:37 UTC',
    'Sunday, 06 Nov 94 08:49:37 GMT',
    'Sunday, x6-Nov-94 08:49:37 GMT',
    'Sunday, 06-Nov-94 08:49:37 GMTX',
    'Sun Nov  6 08:49:37 94',
    'Sun Nov  x 08:49:37 1994',
    'Sun-Nov  6 08:49:37 1994',
    'Sun Nov  6 08:49:37_1994',
    'Sun Nov  6 08:49:37 199x',
    'Sun Nov  6_08:49:37 1994',
    'Sun Nov  6 08:4x:37 1994',
    'x'.repeat(MAX_HTTP_DATE_LENGTH + 1),
  ]) {
    t.equal(parseHttpDate(bad), undefined, String(bad))
  }
})

test('property: every form of every date between years 1 and 9999 round-trips', async () => {
  const ms = fc
    .integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31) })
    .map((n) => Math.floor(n / 1000) * 1000)
  fc.assert(fc.property(ms, (value) => parseHttpDate(formatHttpDate(value)) === value))
  fc.assert(fc.property(ms, (value) => parseHttpDate(asctime(value)) === value))
  const recent = fc
    .integer({ min: Date.UTC(1977, 0, 1), max: Date.UTC(2075, 11, 31) })
    .map((n) => Math.floor(n / 1000) * 1000)
  fc.assert(
    fc.property(recent, (value) => parseHttpDate(rfc850(value), Date.UTC(2026, 0, 1)) === value),
  )
})

test('property: any string is parsed without throwing, to undefined or a finite time', async () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.string({ unit: 'binary' }),
        fc.date().map((d) => d.toUTCString().replace(/\d/, 'x')),
      ),
      (value) => {
        const parsed = parseHttpDate(value)
        return parsed === undefined || Number.isFinite(parsed)
      },
    ),
    { numRuns: 2000 },
  )
})

test('toSeconds: Date, number and string, cut to whole seconds', async (t) => {
  t.equal(toSeconds(new Date(EPOCH + 999)), EPOCH)
  t.equal(toSeconds(EPOCH + 1), EPOCH)
  t.equal(toSeconds('1994-11-06T08:49:37.500Z'), EPOCH)
  t.equal(toSeconds('nope'), undefined)
  t.equal(toSeconds(Number.NaN), undefined)
})

test('toSeconds of several dates: the latest; undefined when one is invalid or none is given', async (t) => {
  t.equal(toSeconds([EPOCH - 5000, new Date(EPOCH + 999), '1994-11-06T08:49:30Z']), EPOCH)
  t.equal(toSeconds([EPOCH, 'nope']), undefined)
  t.equal(toSeconds([]), undefined)
})
