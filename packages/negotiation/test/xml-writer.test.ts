/**
 * `toXml` writes the same documents fast-xml-parser's builder wrote from the same element tree,
 * with the options restwell used, byte for byte.
 */
import fc from 'fast-check'
import { XMLBuilder } from 'fast-xml-parser'
import { test } from 'tap'
import { toXml, type XmlNode, xmlText, xmlTree } from '../src/xml.js'

// The escapes written out again on purpose: the oracle must not share the writer's table.
const TEXT: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#13;',
}
const ATTRIBUTE: Record<string, string> = { ...TEXT, '\t': '&#9;', '\n': '&#10;' }

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
  processEntities: false,
  tagValueProcessor: (_name: string, value: unknown) =>
    String(value).replace(/[&<>"'\r]/g, (c) => TEXT[c] as string),
  attributeValueProcessor: (_name: string, value: unknown) =>
    xmlText(String(value)).replace(/[&<>"'\t\n\r]/g, (c) => ATTRIBUTE[c] as string),
  maxNestedTags: 1001,
})

/** What the builder wrote for the same arguments. */
function built(value: unknown, root: string, attributes?: Record<string, string>): string {
  const [name, node] = xmlTree(value, root, attributes)
  const tree: Record<string, XmlNode> = { [name]: node }
  return `<?xml version="1.0" encoding="UTF-8"?>${builder.build(tree) as string}`
}

test('the documents of examples: every kind of value, renamed keys, attributes', async (t) => {
  const examples: [unknown, string, Record<string, string>?][] = [
    [{ id: 1, title: 'Dune', tags: ['a', 'b'], draft: false, note: null }, 'book'],
    [[], 'list'],
    [{}, 'empty'],
    ['', 'blank'],
    [{ text: '', list: [''], nested: { deeper: {} } }, 'r'],
    [{ 'a b': 1, '1st': 'x', __proto__x: 2, xmlns: 'n', é: 'ü' }, 'r'],
    [{ q: `<&>"'\r\n\t` }, 'r', { xmlns: 'urn:x', key: 'a"b\tc\nd' }],
    [[null, 1.5, -0, Number.NaN, 10n, 'x', [[]], { a: [{}] }], 'r'],
    [{ date: new Date(0), skip: undefined, fn: () => 1 }, 'r'],
    [{ lone: '\uD800 and \u0001' }, 'bad name!', { type: 'array' }],
  ]
  for (const [value, root, attributes] of examples) {
    t.equal(toXml(value, root, attributes), built(value, root, attributes), JSON.stringify(root))
  }
})

test('property: the same document as the builder for any JSON value', async (t) => {
  const text = fc.string({ unit: 'binary', maxLength: 6 })
  const key = fc.oneof(text, fc.constantFrom('#text', '@_x', 'item', 'xml', '__proto__'))
  const json = fc
    .jsonValue({ maxDepth: 5, stringUnit: 'binary' })
    .map((v) => JSON.parse(JSON.stringify(v)) as unknown)
  const objects = fc.dictionary(key, json, { maxKeys: 6 })
  fc.assert(
    fc.property(fc.oneof(json, objects), text, (value, root) => {
      t.equal(toXml(value, root), built(value, root))
      return true
    }),
    { numRuns: 1000 },
  )
  t.end()
})

test('a deep document: as deep as MAX_XML_DEPTH allows, as the builder wrote it', async (t) => {
  let value: unknown = 'leaf'
  for (let i = 0; i < 998; i++) value = { a: value }
  t.equal(toXml(value, 'r'), built(value, 'r'))
})
