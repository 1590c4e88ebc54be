/**
 * The `Idempotency-Key` request field (draft-ietf-httpapi-idempotency-key-header §2.1): an
 * RFC 9651 Item whose value is a String, parsed by `structured-headers`.
 */
import { parseItem } from 'structured-headers'

/** The field's name, as Node gives request headers (lower case). */
export const KEY_HEADER = 'idempotency-key'

/** The longest key taken by default, in characters (Stripe's bound; the draft sets none). */
export const DEFAULT_MAX_KEY_LENGTH = 255

/**
 * The longest field value parsed at all: room for a key of `maxLength` characters each escaped
 * (`\"`, `\\`), its quotes and a few parameters. A longer value is refused unread.
 */
export function maxFieldLength(maxLength: number): number {
  return 2 * maxLength + 256
}

/**
 * A field that is one String of characters needing no escape, with no parameters nor spaces
 * around it: what clients send. Its key is the text between the quotes, as the parser would
 * read it (RFC 9651 §4.2.5), without the parser's cost on every request.
 */
const PLAIN_STRING = /^"[\x20\x21\x23-\x5b\x5d-\x7e]+"$/

/** A key read from the field, or why the field is refused. */
export type KeyReading = { readonly key: string } | { readonly problem: string }

/**
 * Reads the key of an `Idempotency-Key` field value (several field lines are one value joined
 * with commas, RFC 9651 §4.2, and so refused: the draft allows one). Never throws.
 *
 * @param value the field value as Node gives it
 * @param maxLength the longest key taken, in characters
 * @example
 * readIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"', 255)
 * // → { key: '8e03978e-40d5-43e8-bc93-6894a57f9324' }
 */
export function readIdempotencyKey(
  value: string | readonly string[],
  maxLength: number,
): KeyReading {
  const field = typeof value === 'string' ? value : value.join(', ')
  if (field.length > maxFieldLength(maxLength)) {
    return { problem: `is longer than a key of ${maxLength} characters can be` }
  }
  let bare: unknown
  try {
    bare = PLAIN_STRING.test(field) ? field.slice(1, -1) : parseItem(field)[0]
  } catch {
    return {
      problem:
        'is not a structured field String (RFC 9651 §3.3.3): send it in double quotes, as in Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"',
    }
  }
  if (typeof bare !== 'string') {
    return {
      problem:
        'must be a String (RFC 9651 §3.3.3) in double quotes, as in Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"',
    }
  }
  if (bare.length === 0) return { problem: 'is empty' }
  if (bare.length > maxLength) return { problem: `is longer than ${maxLength} characters` }
  return { key: bare }
}
