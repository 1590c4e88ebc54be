/**
 * The integrity fields (`Content-Digest`, `Repr-Digest`: Dictionaries of Byte Sequences) and the
 * integrity preference fields (`Want-Content-Digest`, `Want-Repr-Digest`: Dictionaries of
 * Integers), RFC 9530 §2-4, parsed and serialized by `structured-headers` (RFC 9651).
 */
import {
  type Dictionary,
  type Item,
  parseDictionary,
  serializeByteSequence,
  serializeDictionary,
} from 'structured-headers'

/** More members than this in one field: the field is ignored (a bound on the work it asks for). */
export const MAX_MEMBERS = 16

/** The preference a `Want-*` member may state: 0 (not acceptable) to 10 (most preferred), §4. */
const MAX_PREFERENCE = 10

/** A Dictionary, or undefined for a value that is not one (RFC 9651 §4.2: the field is ignored). */
function dictionary(value: string): Dictionary | undefined {
  try {
    const parsed = parseDictionary(value)
    return parsed.size > MAX_MEMBERS ? undefined : parsed
  } catch {
    return undefined
  }
}

/** The bare item of a member that is an Item, not an Inner List. */
function bareItem(member: Item | [Item[], unknown]): unknown {
  const [value] = member
  return Array.isArray(value) ? undefined : value
}

/**
 * An integrity field's digests by algorithm key (each a Byte Sequence), or undefined when the
 * field is not a Dictionary of Byte Sequences: a field that fails parsing is ignored whole
 * (RFC 9651 §4.2). Keys are kept as sent, unknown algorithms included.
 */
export function parseIntegrity(value: string): Map<string, Uint8Array> | undefined {
  const parsed = dictionary(value)
  if (parsed === undefined) return undefined
  const digests = new Map<string, Uint8Array>()
  for (const [key, member] of parsed) {
    const item = bareItem(member as Item)
    if (!(item instanceof ArrayBuffer)) return undefined
    digests.set(key, new Uint8Array(item))
  }
  return digests
}

/**
 * An integrity preference field's preferences by algorithm key, or undefined when the field is
 * not a Dictionary of Integers from 0 to 10 (RFC 9530 §4): the field is then ignored.
 */
export function parsePreferences(value: string): Map<string, number> | undefined {
  const parsed = dictionary(value)
  if (parsed === undefined) return undefined
  const preferences = new Map<string, number>()
  for (const [key, member] of parsed) {
    const item = bareItem(member as Item)
    if (typeof item !== 'number' || !Number.isInteger(item) || item < 0 || item > MAX_PREFERENCE) {
      return undefined
    }
    preferences.set(key, item)
  }
  return preferences
}

/** An integrity field of one digest: `sha-256=:<base64>:`. */
export function serializeIntegrity(algorithm: string, digest: Uint8Array): string {
  return serializeDictionary(new Map([[algorithm, [digest, new Map()]]]))
}

/** A digest as a Byte Sequence (`:<base64>:`), as a problem detail names the one it was sent. */
export function byteSequence(digest: Uint8Array): string {
  return serializeByteSequence(digest)
}

/** An integrity preference field: `sha-256=10, sha-512=9` for the algorithms, most preferred first. */
export function serializePreferences(algorithms: readonly string[]): string {
  return serializeDictionary(
    new Map(algorithms.map((algorithm, i) => [algorithm, [MAX_PREFERENCE - i, new Map()]])),
  )
}
