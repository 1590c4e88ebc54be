import fc from 'fast-check'
import { test } from 'tap'
import {
  asList,
  fieldText,
  isOws,
  isTchar,
  isToken,
  pathOf,
  publicUrl,
} from '@restwell/core/internal'

test('pathOf drops the query string', async (t) => {
  t.equal(pathOf('/a/b?c=1&d'), '/a/b')
  t.equal(pathOf('/a/b'), '/a/b')
  t.equal(pathOf('?x'), '')
})

test('RFC 9110 characters: OWS, tchar, token', async (t) => {
  t.ok(isOws(0x20))
  t.ok(isOws(0x09))
  t.notOk(isOws(0x0a))
  for (const c of "!#$%&'*+-.^_`|~azAZ09") t.ok(isTchar(c.charCodeAt(0)), c)
  for (const c of ' "(),/:;<=>?@[\\]{}\u00e9') t.notOk(isTchar(c.charCodeAt(0)), JSON.stringify(c))
  t.ok(isToken('gzip'))
  t.notOk(isToken(''))
  t.notOk(isToken('a b'))
  fc.assert(
    fc.property(fc.string(), (s) => isToken(s) === /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(s)),
  )
})

test('asList', async (t) => {
  t.same(asList(undefined), [])
  t.same(asList('GET'), ['GET'])
  const list = ['GET', 'HEAD']
  t.equal(asList(list), list)
})

test('fieldText joins a repeated field and ignores what is not text', async (t) => {
  t.equal(fieldText('a, b'), 'a, b')
  t.equal(fieldText(['a', 'b, c']), 'a,b, c')
  t.equal(fieldText(['a', 7, undefined, 'b']), 'a,b')
  t.equal(fieldText(undefined), '')
  t.equal(fieldText(42), '')
})

test('publicUrl: the path the client sent with the query the route saw', async (t) => {
  t.equal(publicUrl({ url: '/books?page=2', originalUrl: '/books?page=2' }), '/books?page=2')
  t.equal(publicUrl({ url: '/v1/books?page=2', originalUrl: '/books?page=2' }), '/books?page=2')
  t.equal(publicUrl({ url: '/v1/books', originalUrl: '/books' }), '/books')
  t.equal(
    publicUrl({ url: '/books/7', originalUrl: '/books/7?_method=PATCH' }),
    '/books/7',
    'a method override parameter the rewriter dropped stays out',
  )
})
