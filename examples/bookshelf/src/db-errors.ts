/**
 * Database errors → HTTP errors. A lost or refused connection is a 503 with Retry-After (the
 * client may retry; nothing is wrong with its request); a unique or foreign-key violation the
 * routes did not foresee is a 409; a data exception (a value the database cannot hold, which
 * the schemas should have refused) is a 400; anything else stays an unknown error, which the
 * errors plugin masks as a 500 carrying the requestId (and logs in full).
 */
import { httpErrors, isHttpError } from 'restwell'
import type { Database, Queryable } from './db.js'

/** Seconds a client is asked to wait when the database is unreachable. */
export const DATABASE_RETRY_AFTER = 5

/** Node socket errors that mean "cannot reach the server". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
])

/** SQLSTATEs of a server that is going away or cannot take the connection. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '53400'])

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Cannot use a pool after calling end',
  'Client has encountered a connection error',
  'PGlite is closed',
  'PGlite is closing',
]

/** True when the error says the database cannot be reached rather than that the query failed. */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true
    // Class 08: connection exception.
    if (code.length === 5 && code.startsWith('08')) return true
  }
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))
}

/** Maps a database error to the HTTP error the client sees. */
export function mapDatabaseError(error: unknown): unknown {
  if (isHttpError(error)) return error
  if (isConnectionError(error)) {
    return httpErrors.serviceUnavailable('The database is unavailable; retry later', {
      code: 'DATABASE_UNAVAILABLE',
      expose: true,
      headers: { 'retry-after': DATABASE_RETRY_AFTER },
      cause: error,
    })
  }
  const code = (error as { code?: unknown } | null)?.code
  if (code === '23505') {
    return httpErrors.conflict('A resource with the same unique value already exists', {
      code: 'DUPLICATE',
      cause: error,
    })
  }
  if (code === '23503') {
    return httpErrors.conflict('The change would break a reference between resources', {
      code: 'REFERENCE_CONFLICT',
      cause: error,
    })
  }
  // Class 22, data exception: a value out of range, a NUL in text, a date PostgreSQL has not
  // (22003, 22021, 22008, ...). The request carried it. The SQL message, which names no field
  // the client knows, is not sent: it stays the error's `cause`.
  if (typeof code === 'string' && code.length === 5 && code.startsWith('22')) {
    return httpErrors.badRequest('A value in the request cannot be stored', {
      code: 'INVALID_VALUE',
      cause: error,
    })
  }
  return error
}

function guardQueryable<T extends Queryable>(target: T): Queryable {
  return {
    query: async <R>(text: string, params?: unknown[]) => {
      try {
        return await target.query<R>(text, params)
      } catch (error) {
        throw mapDatabaseError(error)
      }
    },
  }
}

/** The same database, whose every failure is already an HTTP error (or an unknown 500). */
export function guarded(db: Database): Database {
  const plain = guardQueryable(db)
  return {
    description: db.description,
    query: plain.query,
    transaction: async (work) => {
      try {
        return await db.transaction((tx) => work(guardQueryable(tx)))
      } catch (error) {
        throw mapDatabaseError(error)
      }
    },
    close: () => db.close(),
  }
}
