/**
 * Storage-agnostic helpers for soft-deleted resources: a resource is soft-deleted when it has
 * `deleted: true` or a `deletedAt` timestamp (and no `deleted: false`); it is represented with
 * `deleted: true` and `deletedAt` as an ISO 8601 UTC timestamp (spec part 2).
 */

/** Which items a collection shows: the active ones (default), all, or the deleted ones only. */
export type Inclusion = 'active' | 'all' | 'deleted'

/** The fields a soft-deleted resource carries. */
export interface DeletedFields {
  deleted: true
  deletedAt: string
}

type Resource = Readonly<Record<string, unknown>>

function isRecord(value: unknown): value is Resource {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** True when `resource` is soft-deleted. */
export function isDeleted(resource: unknown): boolean {
  if (!isRecord(resource)) return false
  if (resource.deleted === true) return true
  return (
    resource.deleted === undefined &&
    resource.deletedAt !== undefined &&
    resource.deletedAt !== null
  )
}

/**
 * A timestamp as ISO 8601 UTC (`2026-01-02T03:04:05.000Z`): from a `Date`, an epoch in
 * milliseconds or a date string with its offset. Throws a `TypeError` on anything else.
 */
export function toIsoUtc(value: unknown): string {
  const date =
    value instanceof Date
      ? value
      : typeof value === 'number' || typeof value === 'string'
        ? new Date(value)
        : undefined
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new TypeError(
      `deletedAt must be a Date, an epoch in ms or a date string, got ${String(value)}`,
    )
  }
  return date.toISOString()
}

/**
 * How a resource is sent: a soft-deleted one with `deleted: true` and `deletedAt` in ISO 8601
 * UTC; any other value as it is. Throws a `TypeError` for a deleted resource without a valid
 * `deletedAt` (a storage bug the client must not see as data).
 */
export function represent<T>(resource: T): T {
  if (!isDeleted(resource)) return resource
  const record = resource as Resource
  const deletedAt = toIsoUtc(record.deletedAt)
  if (record.deleted === true && record.deletedAt === deletedAt) return resource
  return { ...record, deleted: true, deletedAt } as T
}

/**
 * How the items of a collection are sent: each one as `represent` sends it, so an item looks
 * the same in a collection as on its own. Returns `items` itself when no item changes.
 * Throws like `represent`.
 */
export function representAll<T>(items: readonly T[]): readonly T[] {
  let shown: T[] | undefined
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T
    const view = represent(item)
    if (view !== item) {
      shown ??= [...items]
      shown[i] = view
    }
  }
  return shown ?? items
}

/**
 * Marks a resource soft-deleted at `now` and returns the new resource (never mutates it).
 * Idempotent: an already deleted resource keeps its `deletedAt`.
 */
export function markDeleted<T extends object>(
  resource: T,
  now: Date = new Date(),
): T & DeletedFields {
  if (isDeleted(resource)) return represent(resource) as T & DeletedFields
  return { ...resource, deleted: true, deletedAt: toIsoUtc(now) }
}

/** Restores a soft-deleted resource: a copy without `deleted` and `deletedAt`. */
export function restore<T extends object>(resource: T): Omit<T, 'deleted' | 'deletedAt'> {
  const {
    deleted: _deleted,
    deletedAt: _deletedAt,
    ...rest
  } = resource as T & {
    deleted?: unknown
    deletedAt?: unknown
  }
  return rest
}

/** Whether a collection that shows `include` shows `resource`. */
export function isIncluded(resource: unknown, include: Inclusion): boolean {
  if (include === 'all') return true
  return isDeleted(resource) === (include === 'deleted')
}

/** The items of `items` a collection that shows `include` shows. */
export function filterDeleted<T>(items: readonly T[], include: Inclusion): T[] {
  return include === 'all' ? [...items] : items.filter((item) => isIncluded(item, include))
}

/**
 * An SQL condition for `include` on a nullable timestamp column, to AND into a `WHERE`:
 * `"deleted_at" IS NULL`, `"deleted_at" IS NOT NULL` or `TRUE`. The column name is quoted.
 */
export function sqlCondition(include: Inclusion, column = 'deleted_at'): string {
  if (include === 'all') return 'TRUE'
  const quoted = `"${column.replaceAll('"', '""')}"`
  return include === 'active' ? `${quoted} IS NULL` : `${quoted} IS NOT NULL`
}

/**
 * True when a request body asks to restore: `{ "deleted": false }` (JSON or merge patch) or a
 * JSON Patch replacing or removing `/deleted` or removing `/deletedAt`.
 */
export function isRestoreBody(body: unknown): boolean {
  if (isRecord(body))
    return body.deleted === false || (body.deletedAt === null && body.deleted !== true)
  if (!Array.isArray(body)) return false
  return body.some((op: unknown) => {
    if (!isRecord(op)) return false
    if (op.path === '/deleted')
      return op.op === 'replace' || op.op === 'add' ? op.value === false : op.op === 'remove'
    return (
      op.path === '/deletedAt' &&
      (op.op === 'remove' || ((op.op === 'replace' || op.op === 'add') && op.value === null))
    )
  })
}
