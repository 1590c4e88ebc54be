/**
 * `application/xml`: JSON values as XML that round-trips (types in attributes). `toXml` writes
 * it itself; `fromXml` reads it with fast-xml-parser, an optional peer dependency loaded on first
 * use.
 */
import { httpErrors } from '@restwell/errors'
import { createRequire } from 'node:module'
import type { XMLParser } from 'fast-xml-parser'
import { isModuleNotFound } from '@restwell/core/internal'

/** Element name of each array entry. */
export const XML_ITEM = 'item'
/**
 * Deepest element nesting `toXml` writes and `fromXml` reads (the root element is 1; each
 * object or array level of a payload is one element more, an array's `<item>` one more still),
 * so what one writes the other reads back. fast-xml-parser's default (100) made a comment
 * thread 50 replies deep a 500; 1000 bounds what a hostile request body costs to read.
 */
export const MAX_XML_DEPTH = 1000
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'

/**
 * Escapes in element text: markup characters, and CR, which a parser would otherwise read as LF
 * (XML 1.0 §2.11 end-of-line handling); attribute values add tab and LF (below).
 */
const TEXT_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#13;',
}
/**
 * A conforming parser normalizes a literal tab, LF or CR in an attribute value to a space (XML 1.0
 * §3.3.3); as character references they are read back as they are.
 */
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '\t': '&#9;',
  '\n': '&#10;',
}
const TEXT_SPECIAL = /[&<>"'\r]/g
const ATTRIBUTE_SPECIAL = /[&<>"'\t\n\r]/g

/** Escapes element text (already cleaned by `xmlText`). */
function escapeText(value: string): string {
  return value.replace(TEXT_SPECIAL, (c) => TEXT_ESCAPES[c] as string)
}

/**
 * Cleans and escapes an attribute value: what XML 1.0 cannot carry becomes U+FFFD (`xmlText`),
 * markup characters and tab, LF, CR become references.
 */
function escapeAttribute(value: string): string {
  return xmlText(value).replace(ATTRIBUTE_SPECIAL, (c) => ATTRIBUTE_ESCAPES[c] as string)
}

const PARSER_OPTIONS = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Also decodes character references (`&#10;`, as `toXml` writes tab, LF and CR in attributes).
  htmlEntities: true,
  // The parser refuses an element once this many are open around it: MAX_XML_DEPTH levels in all.
  maxNestedTags: MAX_XML_DEPTH - 1,
}

let parser: XMLParser | undefined

/** The parser, made on first use (a synchronous require: `fromXml` stays sync). */
function xmlParser(): XMLParser {
  if (parser === undefined) {
    let fxp: typeof import('fast-xml-parser')
    try {
      fxp = createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser')
    } catch (error) {
      if (!isModuleNotFound(error)) throw error
      throw new Error(
        'fromXml reads XML with fast-xml-parser, an optional peer dependency: install it (npm install fast-xml-parser)',
        { cause: error },
      )
    }
    parser = new fxp.XMLParser(PARSER_OPTIONS)
  }
  return parser
}

function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
}
function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 46
}

/** Names XML parsers (fast-xml-parser among them) refuse or rename, as JavaScript property keys. */
const RESERVED_NAMES = new Set([
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
])

/**
 * Makes a JSON key a safe XML element name: characters outside `[A-Za-z0-9_.-]` become `_`; a
 * name that does not start with a letter or `_`, starts with `xml`, or is a JavaScript
 * prototype name (`__proto__`, `constructor`, ...) gets a `_` prefix.
 */
export function xmlName(key: string): string {
  let out = ''
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i)
    out += isNameChar(c) ? key[i] : '_'
  }
  if (
    out === '' ||
    !isNameStart(out.charCodeAt(0)) ||
    out.toLowerCase().startsWith('xml') ||
    RESERVED_NAMES.has(out)
  ) {
    out = `_${out}`
  }
  return out
}

/** True for a UTF-16 code unit XML 1.0 allows outside a surrogate pair (§2.2 Char). */
function isXmlUnit(c: number): boolean {
  return c === 9 || c === 10 || c === 13 || (c >= 32 && c < 0xd800) || (c > 0xdfff && c < 0xfffe)
}

/**
 * Replaces what XML 1.0 cannot carry at all (C0 controls but tab, LF and CR; lone
 * surrogates; U+FFFE and U+FFFF) with U+FFFD. One pass; the string is returned as is when clean.
 */
export function xmlText(value: string): string {
  let out: string | undefined
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (isXmlUnit(c)) {
      if (out !== undefined) out += value[i]
      continue
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        if (out !== undefined) out += value.slice(i, i + 2)
        i++
        continue
      }
    }
    out = `${out ?? value.slice(0, i)}\uFFFD`
  }
  return out ?? value
}

export type XmlNode = string | { [key: string]: XmlNode | XmlNode[] }

function withAttributes(node: XmlNode, attributes: Record<string, string>): XmlNode {
  const base: { [key: string]: XmlNode | XmlNode[] } =
    typeof node === 'string' ? (node === '' ? {} : { '#text': node }) : { ...node }
  for (const [name, value] of Object.entries(attributes)) base[`@_${name}`] = value
  return base
}

/** True for a value `toNode` writes as an element (JSON drops functions, symbols, undefined). */
function isElement(value: unknown): boolean {
  const type = typeof value
  return type !== 'undefined' && type !== 'function' && type !== 'symbol'
}

function toNode(raw: unknown, ancestors: Set<object>): XmlNode | undefined {
  let value = raw
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    value = (value as { toJSON: () => unknown }).toJSON()
  }
  // Every value that becomes an element sits one level below its `ancestors`, under the root.
  if (ancestors.size >= MAX_XML_DEPTH && isElement(value)) {
    throw new RangeError(`Cannot write XML nested deeper than ${MAX_XML_DEPTH} elements`)
  }
  switch (typeof value) {
    case 'string':
      return xmlText(value)
    case 'number':
      return Number.isFinite(value)
        ? { '#text': String(value), '@_type': 'number' }
        : { '@_nil': 'true' }
    case 'bigint':
      return { '#text': value.toString(), '@_type': 'number' }
    case 'boolean':
      return { '#text': String(value), '@_type': 'boolean' }
    case 'object':
      break
    default:
      return undefined
  }
  if (value === null) return { '@_nil': 'true' }
  if (ancestors.has(value)) throw new TypeError('Converting circular structure to XML')
  ancestors.add(value)
  let node: XmlNode
  if (Array.isArray(value)) {
    const items = value.map((item) => toNode(item, ancestors) ?? { '@_nil': 'true' })
    node = items.length === 0 ? { '@_type': 'array' } : { '@_type': 'array', [XML_ITEM]: items }
  } else {
    // No prototype: a JSON key such as `__proto__` stays an ordinary element.
    const children: { [key: string]: XmlNode | XmlNode[] } = Object.create(null)
    let count = 0
    for (const [key, child] of Object.entries(value)) {
      let converted = toNode(child, ancestors)
      if (converted === undefined) continue
      const name = xmlName(key)
      if (name !== key) converted = withAttributes(converted, { key })
      const previous = children[name]
      if (previous === undefined) children[name] = converted
      else
        children[name] = Array.isArray(previous) ? [...previous, converted] : [previous, converted]
      count++
    }
    node = count === 0 ? { '@_type': 'object' } : children
  }
  ancestors.delete(value)
  return node
}

/**
 * The element a node becomes: attributes (`@_` keys) in the start tag, then text and child
 * elements in key order; an element with neither is self-closing.
 */
function writeElement(name: string, node: XmlNode): string {
  if (typeof node === 'string') {
    return node === '' ? `<${name}/>` : `<${name}>${escapeText(node)}</${name}>`
  }
  let attributes = ''
  let content = ''
  for (const key of Object.keys(node)) {
    const value = node[key] as XmlNode | XmlNode[]
    if (key.startsWith('@_')) {
      attributes += ` ${key.slice(2)}="${escapeAttribute(value as string)}"`
    } else if (key === '#text') {
      content += escapeText(value as string)
    } else if (Array.isArray(value)) {
      for (const item of value) content += writeElement(key, item)
    } else {
      content += writeElement(key, value)
    }
  }
  return content === '' ? `<${name}${attributes}/>` : `<${name}${attributes}>${content}</${name}>`
}

/** The root element's name and node `toXml` writes. */
export function xmlTree(
  value: unknown,
  root: string,
  attributes: Record<string, string> = {},
): [string, XmlNode] {
  return [
    xmlName(root),
    withAttributes(toNode(value, new Set()) ?? { '@_nil': 'true' }, attributes),
  ]
}

/**
 * Serializes a JSON value as an XML document under one root element. Arrays become `<item>`
 * children with `type="array"`; numbers and booleans carry `type`, null `nil="true"`, renamed
 * keys their original name in `key`, so `fromXml` gives the same JSON back.
 */
export function toXml(
  value: unknown,
  root: string,
  attributes: Record<string, string> = {},
): string {
  return DECLARATION + writeElement(...xmlTree(value, root, attributes))
}

type OrderedNode = { [name: string]: OrderedNode[] | string } & { ':@'?: Record<string, string> }

function textOf(children: readonly OrderedNode[]): string {
  let text = ''
  for (const child of children) {
    const t = child['#text']
    if (typeof t === 'string') text += t
  }
  return text
}

function fromNode(name: string, node: OrderedNode): unknown {
  const attributes = node[':@'] ?? {}
  // With `preserveOrder`, fast-xml-parser gives every element an array of children.
  const children = node[name] as OrderedNode[]
  if (attributes['@_nil'] === 'true') return null
  switch (attributes['@_type']) {
    case 'number':
      return Number(textOf(children))
    case 'boolean':
      return textOf(children) === 'true'
    case 'array':
      return elementsOf(children).map(([childName, child]) => fromNode(childName, child))
    case 'object':
      return {}
  }
  const elements = elementsOf(children)
  if (elements.length === 0) return textOf(children)
  const out: Record<string, unknown> = {}
  for (const [childName, child] of elements) {
    const key = child[':@']?.['@_key'] ?? childName
    // defineProperty, not assignment: a `__proto__` element must not replace the prototype.
    Object.defineProperty(out, key, {
      value: fromNode(childName, child),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

function elementsOf(children: readonly OrderedNode[]): [string, OrderedNode][] {
  const out: [string, OrderedNode][] = []
  for (const child of children) {
    const name = Object.keys(child).find((key) => key !== ':@' && key !== '#text')
    if (name !== undefined) out.push([name, child])
  }
  return out
}

/**
 * Reads a document written by `toXml` back into JSON (the root element's content). A document
 * the parser refuses (too deep, `__proto__`...) throws a 400 `HttpError`. Needs the optional peer
 * `fast-xml-parser`; without it, throws an `Error` that says so.
 */
export function fromXml(xml: string): unknown {
  const reader = xmlParser()
  let document: OrderedNode[]
  try {
    document = reader.parse(xml) as OrderedNode[]
  } catch (error) {
    // fast-xml-parser throws `Error`s whose messages say what is refused.
    throw httpErrors.badRequest(`The XML body cannot be read: ${(error as Error).message}`, {
      details: [{ field: 'body', message: 'is not XML that can be read' }],
      cause: error,
    })
  }
  const root = elementsOf(document)[0]
  return root === undefined ? undefined : fromNode(root[0], root[1])
}
