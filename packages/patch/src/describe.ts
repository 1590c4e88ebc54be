/** What the patch convention adds to a route's OpenAPI description. */
import type { RouteContext, RouteDescription } from '@restwell/core'
import type { PatchRouteConfig } from './options.js'
import type { PatchSettings } from './settings.js'

const ACCEPT = [['Accept-Patch', 'The patch formats this route accepts']] as const

/**
 * A patch route (as `patchRoute` decides) answers 409 for a failed `test` or a missing
 * `path`/`from` (RFC 6902 §5) and 422 for a patched document the route refuses; a route that
 * sets `config.patch` names its formats in `Accept-Patch` on the 405 and 415 it has.
 */
export function describePatch(
  { methods, config }: RouteContext<PatchRouteConfig>,
  { options }: PatchSettings,
): RouteDescription | undefined {
  const own = config ?? (options.everyPatchRoute && methods.includes('PATCH') ? {} : undefined)
  if (own === undefined) return undefined
  return {
    responses: [
      [
        409,
        'Conflict: a JSON Patch `test` found another value, or a `path`/`from` is not in the document',
      ],
      [
        422,
        'Unprocessable Content: the patched document breaks the schema, changes a read-only field or reaches a forbidden path',
      ],
    ],
    ...(config === undefined
      ? {}
      : {
          statusHeaders: [
            [405, ACCEPT],
            [415, ACCEPT],
          ],
        }),
  }
}
