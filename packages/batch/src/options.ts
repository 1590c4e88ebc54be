/** Options of `@restwell/batch`. */
import { validateOptions } from '@restwell/errors'
import { Type } from '@sinclair/typebox'

/**
 * Runs `run` in one transaction: committed when it resolves, rolled back when it rejects. Every
 * operation of an atomic batch runs inside `run`, so the app's data layer must use the
 * transaction for the requests made within it (an `AsyncLocalStorage`, see the README).
 */
export type BatchTransaction = <T>(run: () => Promise<T>) => Promise<T>

/**
 * @param basePath Path of the batch endpoint (lower-case kebab segments). ['/batch']
 * @param maxOperations Most operations in one batch; more is a 400. [100]
 * @param maxBodySize Largest batch body in bytes; more is a 413. [1048576]
 * @param concurrency Operations without `dependsOn` run at most this many at once. [10]
 * @param transaction `(run) => Promise`: runs an atomic batch in one transaction; without it `"atomic": true` is a 400. [none]
 * @param forbiddenHeaders More header names an operation may not set (the method override header of the app). [[]]
 * @param forbiddenQuery More query parameters an operation may not use (the method override parameter). [[]]
 * @param config Route config of the batch route (e.g. `{ auth: { scopes: ['batch'] } }`). [{}]
 */
export interface BatchOptions {
  basePath?: string
  maxOperations?: number
  maxBodySize?: number
  concurrency?: number
  transaction?: BatchTransaction
  forbiddenHeaders?: string[]
  forbiddenQuery?: string[]
  config?: Record<string, unknown>
}

export const BatchOptionsSchema = Type.Object(
  {
    basePath: Type.Optional(
      Type.String({ pattern: '^(?:/[a-z0-9]+(?:-[a-z0-9]+)*)+$', maxLength: 200 }),
    ),
    maxOperations: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    maxBodySize: Type.Optional(Type.Integer({ minimum: 2, maximum: 100 * 1024 * 1024 })),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    transaction: Type.Optional(Type.Unsafe<BatchTransaction>(Type.Function([], Type.Unknown()))),
    forbiddenHeaders: Type.Optional(
      Type.Array(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" })),
    ),
    forbiddenQuery: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    config: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
)

/**
 * Headers an operation may not set: those of the connection (the batch's are used), framing,
 * and the usual method override headers (an operation says its method in `method`).
 */
export const FORBIDDEN_HEADERS: readonly string[] = [
  'host',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'transfer-encoding',
  'content-length',
  'expect',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
]
/** The usual method override query parameter. */
export const FORBIDDEN_QUERY: readonly string[] = ['_method']

export interface ResolvedBatchOptions {
  basePath: string
  maxOperations: number
  maxBodySize: number
  concurrency: number
  transaction: BatchTransaction | undefined
  forbiddenHeaders: ReadonlySet<string>
  forbiddenQuery: ReadonlySet<string>
  config: Record<string, unknown>
}

/** Checks the options (an `OptionsError` names the field) and applies the defaults. */
export function resolveBatchOptions(options: unknown): ResolvedBatchOptions {
  const valid = validateOptions('@restwell/batch', BatchOptionsSchema, options) as BatchOptions
  return {
    basePath: valid.basePath ?? '/batch',
    maxOperations: valid.maxOperations ?? 100,
    maxBodySize: valid.maxBodySize ?? 1024 * 1024,
    concurrency: valid.concurrency ?? 10,
    transaction: valid.transaction,
    forbiddenHeaders: new Set(
      [...FORBIDDEN_HEADERS, ...(valid.forbiddenHeaders ?? [])].map((name) => name.toLowerCase()),
    ),
    forbiddenQuery: new Set([...FORBIDDEN_QUERY, ...(valid.forbiddenQuery ?? [])]),
    config: valid.config ?? {},
  }
}
