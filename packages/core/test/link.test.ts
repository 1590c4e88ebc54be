import fc from 'fast-check'
import Fastify from 'fastify'
import { test } from 'tap'
import { appendLink } from '@restwell/core'
import { safePath } from '@restwell/core/internal'

test('safePath percent-encodes what may not appear in a URI-Reference', async (t) => {
  t.equal(safePath('/plain/path?a=1&b=%20'), '/plain/path?a=1&b=%20', 'nothing to do: same string')
  t.equal(
    safePath('/a b<c>"d\\e^f`g{h|i}j\u00e9\u{1F600}'),
    '/a%20b%3Cc%3E%22d%5Ce%5Ef%60g%7Bh%7Ci%7Dj%C3%A9%F0%9F%98%80',
  )
  t.equal(safePath('/x\ud800'), '/x%EF%BF%BD', 'a lone surrogate does not throw')
  t.equal(
    safePath('/b?filter[status]=new&q=a#b'),
    '/b?filter%5Bstatus%5D=new&q=a%23b',
    'no fragment, no brackets outside a host (RFC 3986 §3.2.2, §3.4)',
  )
  t.equal(safePath('/v2/books?q=a>b&limit=5'), '/v2/books?q=a%3Eb&limit=5')
})

test('safePath: a % that starts no pct-encoded triplet becomes %25 (RFC 3986 §2.4)', async (t) => {
  t.equal(safePath('/b?q=100%'), '/b?q=100%25')
  t.equal(safePath('/b?q=%zz'), '/b?q=%25zz')
  t.equal(safePath('/b?q=a%2'), '/b?q=a%252')
  t.equal(safePath('/b?q=a%2&r=1'), '/b?q=a%252&r=1')
  t.equal(safePath('%'), '%25')
  t.equal(safePath('/b?q=%g1%1g%%41'), '/b?q=%25g1%251g%25%41')
  t.equal(safePath('/b?q=%2f%C3%A9%aF'), '/b?q=%2f%C3%A9%aF', 'valid escapes kept, any case')
  t.equal(safePath('/b?q=%%'), '/b?q=%25%25')
})

/** RFC 3986 URI-reference characters (unreserved, sub-delims, `:@/?`) and pct-encoded triplets. */
const URI_REFERENCE = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/

/** The bytes a URI-Reference stands for: `%XX` a byte, any other character its UTF-8. */
function bytesOf(value: string): Buffer {
  const parts: Buffer[] = []
  let start = 0
  for (const match of value.matchAll(/%[0-9A-Fa-f]{2}/g)) {
    parts.push(Buffer.from(value.slice(start, match.index), 'utf8'))
    parts.push(Buffer.from([Number.parseInt(match[0].slice(1), 16)]))
    start = match.index + 3
  }
  parts.push(Buffer.from(value.slice(start), 'utf8'))
  return Buffer.concat(parts)
}

test('property: safePath gives a URI-Reference that stands for the same bytes', async () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 200, unit: 'binary' }),
      fc.array(fc.constantFrom('%', '%4', '%zz', '%41', '%e9', '>', '"', '#', '[', '{', 'a'), {
        maxLength: 12,
      }),
      (text, pieces) => {
        const input = `/${pieces.join('')}${text}${pieces.join('')}`
        const target = safePath(input)
        return (
          URI_REFERENCE.test(target) &&
          safePath(target) === target &&
          bytesOf(target).equals(bytesOf(input))
        )
      },
    ),
    { numRuns: 2000 },
  )
})

test('appendLink adds to a Link set earlier instead of replacing it', async (t) => {
  const app = Fastify()
  app.get('/none', async (_request, reply) => appendLink(reply, '</a>; rel="a"').send('x'))
  app.get('/string', async (_request, reply) => {
    reply.header('link', '</d>; rel="describedby"')
    return appendLink(reply, '</a>; rel="a"', '</b>; rel="b"').send('x')
  })
  app.get('/array', async (_request, reply) => {
    reply.header('link', ['</x>; rel="x"', '</y>; rel="y"'])
    return appendLink(reply, '</a>; rel="a"').send('x')
  })
  app.get('/empty', async (_request, reply) => appendLink(reply, '').send('x'))
  app.get('/kept', async (_request, reply) => {
    reply.header('link', '</d>; rel="describedby"')
    return appendLink(reply).send('x')
  })
  t.equal((await app.inject('/none')).headers.link, '</a>; rel="a"')
  t.equal(
    (await app.inject('/string')).headers.link,
    '</d>; rel="describedby", </a>; rel="a", </b>; rel="b"',
  )
  t.equal((await app.inject('/array')).headers.link, '</x>; rel="x", </y>; rel="y", </a>; rel="a"')
  t.equal((await app.inject('/empty')).headers.link, undefined, 'nothing to say: no header')
  t.equal((await app.inject('/kept')).headers.link, '</d>; rel="describedby"')
})
