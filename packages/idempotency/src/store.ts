/**
 * What a store keeps under a key: the marker of a request that runs, or the answer of one that
 * completed, each with the fingerprint of its request. The memory and Redis stores keep them.
 */

/** A response as stored: its final status, the headers that describe it, its bytes. */
export interface StoredAnswer {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [name: string, value: string | readonly string[]]>
  readonly body: Buffer
}

/** A request that holds the key while it runs (`token` tells its marker from another's). */
export interface Running {
  readonly state: 'running'
  readonly fingerprint: string
  readonly token: string
}

/** A request that completed, and its answer. */
export interface Completed {
  readonly state: 'done'
  readonly fingerprint: string
  readonly answer: StoredAnswer
}

export type StoredRecord = Running | Completed

/** A value, or a promise of it: the memory store answers at once. */
export type Maybe<T> = T | Promise<T>

/** Where keys are kept. Each operation on one key is atomic. */
export interface IdempotencyStore {
  /**
   * Claims `key` with `marker` for `ms` unless the key holds a record; returns that record, or
   * undefined once the key is claimed.
   */
  claim(key: string, marker: Running, ms: number): Maybe<StoredRecord | undefined>
  /** Replaces `marker` by `record`, kept `ms`; false when the key no longer holds `marker`. */
  complete(key: string, marker: Running, record: Completed, ms: number): Maybe<boolean>
  /** Frees `key` if it still holds `marker`. */
  release(key: string, marker: Running): Maybe<void>
  /** Lets go of what the store holds open (its connection). */
  close(): Promise<void>
}

/** A record as text (Redis): JSON, the body in base64. */
export function encodeRecord(record: StoredRecord): string {
  if (record.state === 'running') return JSON.stringify(record)
  const { status, headers, body } = record.answer
  return JSON.stringify({
    state: 'done',
    fingerprint: record.fingerprint,
    answer: { status, headers, body: body.toString('base64') },
  })
}

/** The record `encodeRecord` wrote; throws on anything else (the store is then unusable: 503). */
export function decodeRecord(text: string): StoredRecord {
  const value = JSON.parse(text) as {
    state?: unknown
    fingerprint?: unknown
    token?: unknown
    answer?: { status?: unknown; headers?: unknown; body?: unknown }
  }
  const { state, fingerprint, token, answer } = value
  if (typeof fingerprint === 'string' && state === 'running' && typeof token === 'string') {
    return { state, fingerprint, token }
  }
  if (
    typeof fingerprint === 'string' &&
    state === 'done' &&
    typeof answer?.status === 'number' &&
    Array.isArray(answer.headers) &&
    typeof answer.body === 'string'
  ) {
    return {
      state,
      fingerprint,
      answer: {
        status: answer.status,
        headers: answer.headers as StoredAnswer['headers'],
        body: Buffer.from(answer.body, 'base64'),
      },
    }
  }
  throw new TypeError('@restwell/idempotency: a stored record of another shape')
}
