/** The memory store: one instance's keys, in insertion order, forgotten when they expire. */
import type { Completed, IdempotencyStore, Running, StoredRecord } from './store.js'

interface Entry {
  readonly record: StoredRecord
  readonly expires: number
}

/** Expired keys dropped from the front per claim: the work of forgetting stays bounded. */
const SWEEP = 4

/**
 * Keys in a `Map`, oldest first: a completed key moves to the end, so expiry mostly frees the
 * front. Past `maxKeys`, the oldest key is forgotten first.
 */
export function memoryStore(maxKeys: number, now: () => number = Date.now): IdempotencyStore {
  const entries = new Map<string, Entry>()
  function live(key: string): Entry | undefined {
    const entry = entries.get(key)
    if (entry === undefined || entry.expires > now()) return entry
    entries.delete(key)
    return undefined
  }
  function sweep(): void {
    for (let i = 0; i < SWEEP; i++) {
      const first = entries.entries().next()
      if (first.done === true || first.value[1].expires > now()) return
      entries.delete(first.value[0])
    }
  }
  return {
    claim(key: string, marker: Running, ms: number): StoredRecord | undefined {
      sweep()
      const found = live(key)
      if (found !== undefined) return found.record
      for (const oldest of entries.keys()) {
        if (entries.size < maxKeys) break
        entries.delete(oldest)
      }
      entries.set(key, { record: marker, expires: now() + ms })
      return undefined
    },
    complete(key: string, marker: Running, record: Completed, ms: number): boolean {
      if (live(key)?.record !== marker) return false
      entries.delete(key)
      entries.set(key, { record, expires: now() + ms })
      return true
    },
    release(key: string, marker: Running): void {
      if (live(key)?.record === marker) entries.delete(key)
    },
    async close(): Promise<void> {
      entries.clear()
    },
  }
}
