/**
 * Opaque, tamper-proof cursors: `base64url(JSON payload) "." base64url(HMAC-SHA256)`. The
 * payload carries the sort key values of the item the cursor points from, its direction, an
 * expiry, and a digest binding it to the route, sort and filters it was made for.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { CursorPosition, CursorValue } from './types.js'

/** Longest `?cursor=` value read. */
export const MAX_CURSOR_LENGTH = 4096

/** What a cursor says, once verified. */
export interface CursorPayload {
  position: CursorPosition
  /** The binding digest (route, sort, filters). */
  binding: string
}

interface Wire {
  v: 1
  d: 'a' | 'b'
  k: Record<string, unknown>
  b: string
  e?: number
}

const DATE_TAG = '$date'
const BASE64URL = /^[A-Za-z0-9_-]+$/

function sign(data: string, secret: string): Buffer {
  return createHmac('sha256', secret).update(data).digest()
}

function encodeValue(value: CursorValue): unknown {
  return value instanceof Date ? { [DATE_TAG]: value.toISOString() } : value
}

function decodeValue(value: unknown): CursorValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  // What is left of parsed JSON is an object or an array; only `{ "$date": iso }` is a value.
  if (Array.isArray(value)) return undefined
  const record = value as Record<string, unknown>
  const iso = record[DATE_TAG]
  if (typeof iso !== 'string' || Object.keys(record).length !== 1) return undefined
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? undefined : date
}

/** The digest a cursor is bound to: the same route, sort and filters must be used with it. */
export function cursorBinding(
  route: string,
  sort: string,
  filters: Readonly<Record<string, unknown>>,
): string {
  const canonical = Object.keys(filters)
    .sort()
    .map((key) => [key, filters[key]])
  return createHash('sha256')
    .update(JSON.stringify([route, sort, canonical]))
    .digest('base64url')
    .slice(0, 22)
}

/** A cursor lives at least `1 - 1 / CURSOR_EXPIRY_STEPS` of `cursorTtl` (90 %). */
export const CURSOR_EXPIRY_STEPS = 10

/**
 * The expiry of the cursors issued at `now` (seconds since the epoch) with lifetime `ttl`
 * seconds, rounded down to a step of `ttl / CURSOR_EXPIRY_STEPS` so an unchanged page keeps its
 * bytes (and ETag) for a step; 0 (never) when `ttl` is 0.
 */
export function cursorExpiry(now: number, ttl: number): number {
  if (ttl === 0) return 0
  const step = Math.max(1, Math.floor(ttl / CURSOR_EXPIRY_STEPS))
  return Math.floor((now + ttl) / step) * step
}

/** Makes a signed cursor. `expiresAt` is in seconds since the epoch; 0 for never. */
export function encodeCursor(
  position: CursorPosition,
  binding: string,
  secret: string,
  expiresAt: number,
): string {
  const k: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(position.values)) k[field] = encodeValue(value)
  const wire: Wire = { v: 1, d: position.direction === 'after' ? 'a' : 'b', k, b: binding }
  if (expiresAt > 0) wire.e = expiresAt
  const data = Buffer.from(JSON.stringify(wire)).toString('base64url')
  return `${data}.${sign(data, secret).toString('base64url')}`
}

/**
 * Verifies and reads a cursor: the signature under any of `secrets`, the shape, and the expiry
 * (`now` in seconds). Returns the payload or the reason it was refused; never throws.
 */
export function decodeCursor(
  token: string,
  secrets: readonly string[],
  now: number,
): CursorPayload | { problem: string } {
  const dot = token.indexOf('.')
  if (token.length > MAX_CURSOR_LENGTH || dot === -1) return { problem: 'is not a valid cursor' }
  const data = token.slice(0, dot)
  const mac = token.slice(dot + 1)
  if (!BASE64URL.test(data) || !BASE64URL.test(mac)) return { problem: 'is not a valid cursor' }
  const given = Buffer.from(mac, 'base64url')
  const valid = secrets.some((secret) => {
    const expected = sign(data, secret)
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!valid) return { problem: 'is not a valid cursor (bad signature)' }
  let wire: Partial<Wire>
  try {
    wire = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as Partial<Wire>
  } catch {
    return { problem: 'is not a valid cursor' }
  }
  if (
    typeof wire !== 'object' ||
    wire === null ||
    wire.v !== 1 ||
    (wire.d !== 'a' && wire.d !== 'b') ||
    typeof wire.k !== 'object' ||
    wire.k === null ||
    Array.isArray(wire.k) ||
    typeof wire.b !== 'string' ||
    (wire.e !== undefined && typeof wire.e !== 'number')
  ) {
    return { problem: 'is not a valid cursor' }
  }
  if (wire.e !== undefined && wire.e <= now) return { problem: 'has expired' }
  // No prototype: a `__proto__` key in the payload stays a plain key.
  const values: Record<string, CursorValue> = Object.create(null) as Record<string, CursorValue>
  for (const [field, raw] of Object.entries(wire.k)) {
    const value = decodeValue(raw)
    if (value === undefined) return { problem: 'is not a valid cursor' }
    values[field] = value
  }
  return { position: { direction: wire.d === 'a' ? 'after' : 'before', values }, binding: wire.b }
}
