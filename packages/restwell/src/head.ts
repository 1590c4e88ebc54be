/** HEAD answered like GET, whatever plugins a route has. */
import { headHookLast } from '@restwell/conditional'
import type { onRouteHookHandler } from 'fastify'

/**
 * Moves Fastify's HEAD body-dropping hook after every plugin's onSend hooks (see
 * `headHookLast`), on every route, `@restwell/conditional` or not: compression too must see
 * HEAD's body. It is added before the other plugins' onRoute hooks, so its microtask runs
 * before theirs: hooks they append in a microtask (conditional's last one, which must see
 * what the HEAD hook did) stay after it.
 */
export const headLikeGet: onRouteHookHandler = function restwellHeadLikeGet(route) {
  queueMicrotask(() => headHookLast(route as { onSend?: unknown }))
}
