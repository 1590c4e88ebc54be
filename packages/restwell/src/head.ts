/** HEAD answered like GET, whatever plugins a route has. */
import { headHookLast } from '@restwell/conditional'
import { asList } from '@restwell/errors'
import type { onRouteHookHandler, onSendHookHandler } from 'fastify'

/**
 * Moves Fastify's HEAD body-dropping hook after every plugin's onSend hooks (see
 * `headHookLast`), on every route, `@restwell/conditional` or not: compression too must see
 * HEAD's body. It is added before the other plugins' onRoute hooks, so its microtask runs
 * before theirs: hooks they append in a microtask (conditional's last one, which must see
 * what the HEAD hook did) stay after it. The hook is also wrapped (`noLengthOn204`).
 */
export const headLikeGet: onRouteHookHandler = function restwellHeadLikeGet(route) {
  queueMicrotask(() => {
    headHookLast(route as { onSend?: unknown })
    const hooks = asList(route.onSend as onSendHookHandler | onSendHookHandler[] | undefined)
    const head = hooks[hooks.length - 1]
    if (head?.name !== FASTIFY_HEAD_HOOK) return
    route.onSend = [...hooks.slice(0, -1), noLengthOn204(head)]
  })
}

const FASTIFY_HEAD_HOOK = 'headRouteOnSendHandler'

/**
 * Fastify's HEAD hook answers a reply without a body with `Content-Length: 0`, a 204 included,
 * where the GET's 204 has none (RFC 9110 §8.6: a server MUST NOT send it on a 204). The wrapper
 * keeps the hook's name, by which `headHookLast` (conditional's too) finds it.
 */
function noLengthOn204(head: onSendHookHandler): onSendHookHandler {
  const wrapped: onSendHookHandler = function (request, reply, payload, done) {
    // Fastify's hook always answers `done(null, body)`, at once.
    const then = (error: null, sent: unknown) => {
      if (reply.statusCode === 204) reply.removeHeader('content-length')
      done(error, sent)
    }
    head.call(this, request, reply, payload, then as Parameters<onSendHookHandler>[3])
  }
  return Object.defineProperty(wrapped, 'name', { value: FASTIFY_HEAD_HOOK })
}
