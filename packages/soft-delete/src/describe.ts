/** What the soft-delete convention adds to a route's OpenAPI description. */
import type { RouteContext, RouteDescription } from '@restwell/core'
import type { ResolvedSoftDeleteOptions, RouteSoftDeleteConfig } from './options.js'

/**
 * A read of one item that asks for soft delete answers 410 for a deleted item where `gone` is
 * on (RFC 9110 §15.5.11); a paginated route (`config.pagination`) serves a collection, which
 * hides deleted items instead.
 */
export function describeSoftDelete(
  { route, methods, config }: RouteContext<RouteSoftDeleteConfig>,
  options: ResolvedSoftDeleteOptions,
): RouteDescription | undefined {
  const pagination = (route.config as Record<string, unknown> | undefined)?.pagination
  const collection = pagination !== undefined && pagination !== false
  const read = methods.includes('GET') || methods.includes('HEAD')
  if (config === undefined || collection || !read || (config.gone ?? options.gone) !== true) {
    return undefined
  }
  return { responses: [[410, 'Gone: the item was deleted (`?deleted=include` shows it)']] }
}
