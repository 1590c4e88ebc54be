import fc from 'fast-check'
import { test } from 'tap'
import type { PageInfo } from '@restwell/core'
import {
  fromXml,
  type RepresentationContext,
  resourceName,
  serializePayload,
  toHal,
  toJsonApi,
  toSiren,
  toXml,
  xmlName,
} from '../src/index.js'
import { xmlText } from '../src/xml.js'

const page: PageInfo = {
  items: [
    { id: 1, title: 'A' },
    { id: 'b/2', title: 'B' },
  ],
  links: {
    self: '/books?page=2&limit=2',
    first: '/books?page=1&limit=2',
    prev: '/books?page=1&limit=2',
    next: '/books?page=3&limit=2',
    last: '/books?page=5&limit=2',
  },
  meta: { page: 2, limit: 2, total: 10, totalPages: 5, extra: undefined } as PageInfo['meta'],
}

function ctx(over: Partial<RepresentationContext> = {}): RepresentationContext {
  return {
    self: '/books/1',
    path: '/books/',
    type: 'books',
    collection: 'books',
    idField: 'id',
    page: undefined,
    ...over,
  }
}

test('XML: names made safe, types kept, round trip', async (t) => {
  t.equal(xmlName('title'), 'title')
  t.equal(xmlName('first name'), 'first_name')
  t.equal(xmlName('2nd'), '_2nd')
  t.equal(xmlName('xmlThing'), '_xmlThing')
  t.equal(xmlName(''), '_')
  t.equal(xmlName('-a.b'), '_-a.b')
  t.equal(xmlName('constructor'), '_constructor')
  t.equal(xmlName('ünï'), '_n_')
  const doc = {
    id: 1,
    'first name': 'Ann <&>',
    tags: ['a', 'b'],
    nested: { ok: true, none: null },
    empty: {},
    list: [],
    s: '',
    big: 10n,
    n: Number.NaN,
    skip: undefined,
    fn: () => 1,
    when: new Date(0),
    __proto__x: 1,
  }
  const xml = toXml(doc, 'book')
  t.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?><book>/)
  t.match(xml, '<first_name key="first name">Ann &lt;&amp;&gt;</first_name>')
  t.match(xml, '<tags type="array"><item>a</item><item>b</item></tags>')
  t.match(xml, '<id type="number">1</id>')
  t.match(xml, '<none nil="true"/>')
  t.match(xml, '<big type="number">10</big>')
  t.notMatch(xml, '<skip')
  t.notMatch(xml, '<fn')
  t.same(fromXml(xml), {
    id: 1,
    'first name': 'Ann <&>',
    tags: ['a', 'b'],
    nested: { ok: true, none: null },
    empty: {},
    list: [],
    s: '',
    big: 10,
    n: null,
    when: '1970-01-01T00:00:00.000Z',
    __proto__x: 1,
  })
  t.same(fromXml(toXml([1, [2, null], undefined], 'r')), [1, [2, null], null])
  t.same(fromXml(toXml(undefined, 'r')), null)
  t.same(
    fromXml(toXml({ 'a b': 1, a_b: 2, 'a-b': 3 }, 'r')),
    { 'a b': 1, a_b: 2, 'a-b': 3 },
    'colliding names',
  )
  t.same(fromXml(toXml({ 'a b': 1, 'a.b': 2, 'a^b': 3, a_b: 4 }, 'r')), {
    'a b': 1,
    'a.b': 2,
    'a^b': 3,
    a_b: 4,
  })
  const proto = fromXml(toXml(JSON.parse('{"__proto__":{"polluted":1}}'), 'r')) as Record<
    string,
    unknown
  >
  t.same(Object.keys(proto), ['__proto__'])
  t.equal(({} as Record<string, unknown>)['polluted'], undefined)
  t.equal(fromXml(''), undefined)
  t.equal(fromXml('<r>text<!-- c --></r>'), 'text')
  const cyclic: Record<string, unknown> = {}
  cyclic['self'] = cyclic
  t.throws(() => toXml(cyclic, 'r'), TypeError)
  const shared = { x: 1 }
  t.same(
    fromXml(toXml({ a: shared, b: shared }, 'r')),
    { a: { x: 1 }, b: { x: 1 } },
    'shared is not cyclic',
  )
})

test('XML: characters XML 1.0 cannot carry are replaced', async (t) => {
  t.equal(xmlText('ok\ttab\n'), 'ok\ttab\n')
  t.equal(xmlText('a\u0000b\u001fc'), 'a\uFFFDb\uFFFDc')
  t.equal(xmlText('😀'), '😀', 'surrogate pair kept')
  t.equal(xmlText('\uD800x\uDC00'), '\uFFFDx\uFFFD', 'lone surrogates')
  t.equal(xmlText('a\uFFFEb\uD800'), 'a\uFFFDb\uFFFD')
  t.equal(xmlText('😀\u0001😀'), '😀\uFFFD😀')
})

/** Characters XML 1.0 §2.2 (Char) forbids anywhere in a document, as UTF-16 units. */
function hasForbiddenChar(xml: string): boolean {
  for (let i = 0; i < xml.length; i++) {
    const c = xml.charCodeAt(i)
    if (c < 32 && c !== 9 && c !== 10 && c !== 13) return true
    if (c === 0xfffe || c === 0xffff) return true
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = xml.charCodeAt(i + 1)
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true
      i++
    } else if (c >= 0xdc00 && c <= 0xdfff) return true
  }
  return false
}

/** The `key` attribute values as written (between the quotes). */
function keyAttributes(xml: string): string[] {
  return [...xml.matchAll(/ key="([^"]*)"/g)].map((m) => m[1] as string)
}

test('XML: the key attribute is well-formed and reads back exactly', async (t) => {
  const xml = toXml({ 'a\u0001b': 'x' }, 'r')
  t.notOk(hasForbiddenChar(xml), 'no character XML 1.0 forbids')
  t.match(xml, '<a_b key="a\uFFFDb">x</a_b>')
  t.same(fromXml(xml), { 'a\uFFFDb': 'x' })
  const keys = ['tab\tkey', 'line\nbreak', 'cr\rkey', 'q"u\'ote', 'a&b<c>', ' \t\r\n ']
  const ws = toXml(Object.fromEntries(keys.map((k, i) => [k, i])), 'r')
  t.notOk(hasForbiddenChar(ws))
  for (const written of keyAttributes(ws))
    t.notMatch(written, /[\t\n\r<"']/, 'tab, LF, CR and quotes are references (XML 1.0 §3.3.3)')
  t.match(ws, 'key="tab&#9;key"')
  t.match(ws, 'key="line&#10;break"')
  t.match(ws, 'key="cr&#13;key"')
  t.match(ws, 'key="q&quot;u&apos;ote"')
  t.match(ws, 'key="a&amp;b&lt;c&gt;"')
  t.same(fromXml(ws), Object.fromEntries(keys.map((k, i) => [k, i])), 'round trip')
  t.match(toXml({ a: 1 }, 'r', { note: 'x\u0002\ny' }), '<r note="x\uFFFD&#10;y">')
  const text = toXml({ v: 'a\r\nb\rc\nd\te' }, 'r')
  t.match(text, '<v>a&#13;\nb&#13;c\nd\te</v>', 'CR in text as a reference (XML 1.0 §2.11)')
  t.same(fromXml(text), { v: 'a\r\nb\rc\nd\te' })
})

test('property: any key round-trips through XML (forbidden characters as U+FFFD)', async (t) => {
  const key = fc.string({ unit: 'binary', maxLength: 12 })
  fc.assert(
    fc.property(key, fc.string({ unit: 'binary', maxLength: 6 }), (k, v) => {
      const xml = toXml({ [k]: v }, 'r')
      if (hasForbiddenChar(xml)) return false
      for (const written of keyAttributes(xml)) if (/[\t\n\r<]/.test(written)) return false
      const back = fromXml(xml) as Record<string, unknown>
      t.same(back, { [xmlText(k)]: xmlText(v) })
      return true
    }),
    { numRuns: 500 },
  )
})

test('property: JSON values round-trip through XML', async (t) => {
  const json = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)
  fc.assert(
    fc.property(json, (value) => {
      const back = fromXml(toXml(value, 'root'))
      const expected = JSON.parse(
        JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? xmlText(v) : v)),
      )
      t.same(back, expected === undefined ? null : expected)
      return true
    }),
    { numRuns: 300 },
  )
})

test('HAL: resource, array and page', async (t) => {
  t.same(toHal({ id: 1, title: 'A', _links: { author: { href: '/a/1' } } }, ctx()), {
    _links: { self: { href: '/books/1' }, author: { href: '/a/1' } },
    id: 1,
    title: 'A',
  })
  t.same(toHal('plain', ctx()), { _links: { self: { href: '/books/1' } }, value: 'plain' })
  t.same(
    toHal(
      [{ id: 1 }, { title: 'no id' }, 'x', { _links: { x: { href: '/x' } } }],
      ctx({ self: '/books?q=1', path: '/books' }),
    ),
    {
      _links: { self: { href: '/books?q=1' } },
      _embedded: {
        books: [
          { _links: { self: { href: '/books/1' } }, id: 1 },
          { title: 'no id' },
          { value: 'x' },
          { _links: { x: { href: '/x' } } },
        ],
      },
    },
  )
  t.same(toHal({ items: 'ignored' }, ctx({ page, path: '/books' })), {
    _links: {
      self: { href: '/books?page=2&limit=2' },
      first: { href: '/books?page=1&limit=2' },
      prev: { href: '/books?page=1&limit=2' },
      next: { href: '/books?page=3&limit=2' },
      last: { href: '/books?page=5&limit=2' },
    },
    page: 2,
    limit: 2,
    total: 10,
    totalPages: 5,
    _embedded: {
      books: [
        { _links: { self: { href: '/books/1' } }, id: 1, title: 'A' },
        { _links: { self: { href: '/books/b%2F2' } }, id: 'b/2', title: 'B' },
      ],
    },
  })
})

test('item links: a trailing slash in the path is not doubled', async (t) => {
  t.same(toHal([{ id: 1 }], ctx({ path: '/books/' }))['_embedded'], {
    books: [{ _links: { self: { href: '/books/1' } }, id: 1 }],
  })
})

test('JSON:API: resource, null, primitives, array and page', async (t) => {
  t.same(toJsonApi({ id: 7, type: 'paperback', title: 'A' }, ctx()), {
    data: {
      type: 'books',
      id: '7',
      attributes: { title: 'A' },
      meta: { type: 'paperback' },
      links: { self: '/books/1' },
    },
    links: { self: '/books/1' },
  })
  t.same(toJsonApi({ isbn: 'x', id: 3 }, ctx({ idField: 'isbn' })), {
    data: { type: 'books', id: 'x', attributes: {}, meta: { id: 3 }, links: { self: '/books/1' } },
    links: { self: '/books/1' },
  })
  t.same(toJsonApi(null, ctx()), { data: null, links: { self: '/books/1' } })
  t.same(toJsonApi(5, ctx()).data, {
    type: 'books',
    attributes: { value: 5 },
    links: { self: '/books/1' },
  })
  t.same(toJsonApi([{ id: 1, t: 'a' }, { t: 'b' }], ctx({ self: '/books', path: '/books' })), {
    data: [
      { type: 'books', id: '1', attributes: { t: 'a' }, links: { self: '/books/1' } },
      { type: 'books', attributes: { t: 'b' } },
    ],
    links: { self: '/books' },
  })
  const doc = toJsonApi({}, ctx({ page, path: '/books' }))
  t.same(doc['links'], {
    self: page.links.self,
    first: page.links.first,
    prev: page.links.prev,
    next: page.links.next,
    last: page.links.last,
  })
  t.same(doc['meta'], { page: 2, limit: 2, total: 10, totalPages: 5 })
  t.same((doc['data'] as unknown[]).length, 2)
})

test('Siren: entity, array and page', async (t) => {
  t.same(toSiren({ id: 1 }, ctx()), {
    class: ['books'],
    properties: { id: 1 },
    links: [{ rel: ['self'], href: '/books/1' }],
  })
  t.same(toSiren('x', ctx()).properties, { value: 'x' })
  t.same(toSiren([{ id: 1 }, 2], ctx({ self: '/books', path: '/books' })), {
    class: ['books', 'collection'],
    properties: { count: 2 },
    entities: [
      {
        class: ['books'],
        rel: ['item'],
        properties: { id: 1 },
        links: [{ rel: ['self'], href: '/books/1' }],
      },
      { class: ['books'], rel: ['item'], properties: { value: 2 } },
    ],
    links: [{ rel: ['self'], href: '/books' }],
  })
  const paged = toSiren(null, ctx({ page, path: '/books', collection: 'library' }))
  t.same(paged.class, ['library', 'collection'])
  t.same(paged.properties, { page: 2, limit: 2, total: 10, totalPages: 5 })
  t.same(
    (paged.links as { rel: string[] }[]).map((l) => l.rel[0]),
    ['self', 'first', 'prev', 'next', 'last'],
  )
})

test('serializePayload: JSON and non-2xx hypermedia are left to Fastify', async (t) => {
  const c = { ...ctx(), xmlRoot: 'book' }
  t.equal(serializePayload('application/json', {}, 200, c), undefined)
  t.equal(serializePayload('application/hal+json', {}, 404, c), undefined)
  t.equal(serializePayload('application/hal+json', {}, 199, c), undefined)
  t.match(
    serializePayload('application/xml', { a: 1 }, 404, c),
    '<book><a type="number">1</a></book>',
  )
  t.match(serializePayload('application/vnd.siren+json', { a: 1 }, 200, c), '"class":["books"]')
  t.equal(resourceName('/authors/:id/books/:bookId'), 'books')
  t.equal(resourceName('/'), 'resources')
  t.equal(resourceName('/files/*'), 'files')
})
