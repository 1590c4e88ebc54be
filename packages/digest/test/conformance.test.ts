/**
 * The cases of httpwg/structured-field-tests for the types this package reads (Dictionaries,
 * Byte Sequences, Integers), run against `structured-headers`: parsed as expected, refused where
 * they must fail, and serialized to their canonical form. See fixtures/structured-field-tests.
 */
import { existsSync, readFileSync } from 'node:fs'
import { test } from 'tap'
import {
  type BareItem,
  type Dictionary,
  type InnerList,
  type Item,
  parseDictionary,
  parseItem,
  parseList,
  serializeDictionary,
  serializeItem,
  serializeList,
  Token,
} from 'structured-headers'

const DIR = new URL('./fixtures/structured-field-tests/', import.meta.url)
const FILES = ['dictionary.json', 'binary.json', 'number.json']

interface Case {
  name: string
  raw: string[]
  header_type: 'item' | 'list' | 'dictionary'
  expected?: unknown
  must_fail?: boolean
  can_fail?: boolean
  canonical?: string[]
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** RFC 4648 §6 base32, as the cases write binary content. */
function base32(bytes: Uint8Array): string {
  let bits = 0
  let value = 0
  let out = ''
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31]
  while (out.length % 8 !== 0) out += '='
  return out
}

/** A parsed value in the cases' JSON form. */
function bare(value: BareItem): unknown {
  if (value instanceof Token) return { __type: 'token', value: value.toString() }
  if (value instanceof ArrayBuffer)
    return { __type: 'binary', value: base32(new Uint8Array(value)) }
  return value
}

const params = (map: Map<string, BareItem>): unknown[] => [...map].map(([k, v]) => [k, bare(v)])

function member(value: Item | InnerList): unknown {
  const [head, parameters] = value
  if (Array.isArray(head)) return [head.map((item) => member(item)), params(parameters)]
  return [bare(head as BareItem), params(parameters)]
}

function parsed(kind: Case['header_type'], raw: string): unknown {
  if (kind === 'dictionary') {
    return [...parseDictionary(raw)].map(([key, value]) => [key, member(value)])
  }
  if (kind === 'list') return parseList(raw).map((value) => member(value))
  return member(parseItem(raw))
}

function serialized(kind: Case['header_type'], raw: string): string {
  if (kind === 'dictionary') return serializeDictionary(parseDictionary(raw) as Dictionary)
  if (kind === 'list') return serializeList(parseList(raw))
  return serializeItem(parseItem(raw))
}

const present = FILES.every((file) => existsSync(new URL(file, DIR)))

test('structured-field-tests: Dictionaries, Byte Sequences, Integers', {
  skip: present
    ? false
    : 'the data files are not in test/fixtures/structured-field-tests (see its README)',
}, async (t) => {
  for (const file of FILES) {
    const cases = JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) as Case[]
    for (const c of cases) {
      const raw = c.raw.join(', ')
      let outcome: unknown
      let failed = false
      try {
        outcome = parsed(c.header_type, raw)
      } catch {
        failed = true
      }
      if (c.must_fail) {
        t.ok(failed, `${file}: ${c.name} must fail`)
        continue
      }
      if (failed) {
        t.ok(c.can_fail, `${file}: ${c.name} may fail`)
        continue
      }
      t.same(outcome, c.expected, `${file}: ${c.name}`)
      const canonical = (c.canonical ?? c.raw).join(', ')
      t.equal(serialized(c.header_type, raw), canonical, `${file}: ${c.name} serialized`)
    }
  }
})
