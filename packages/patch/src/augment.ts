/** Type augmentation of Fastify for `@restwell/patch`. */
import type { PatchFormat } from './content-type.js'
import type { JsonPatchOperation } from './json-patch.js'
import type { PatchRouteConfig } from './options.js'

/** The patch a request carries, parsed and checked, with the format its Content-Type named. */
export type ParsedPatch =
  | { readonly format: 'json-patch'; readonly operations: readonly JsonPatchOperation[] }
  | { readonly format: 'merge-patch'; readonly document: unknown }

/** What `@restwell/patch` exposes on the Fastify instance. */
export interface RestwellPatchApi {
  /**
   * The `Accept-Patch` value for a request path (query string ignored) when a patch route
   * matches it, else `undefined`: for plugins that answer OPTIONS or 405 themselves.
   */
  acceptPatch(url: string): string | undefined
  /** The formats a path accepts (empty when no patch route matches it). */
  formatsFor(url: string): PatchFormat[]
}

declare module 'fastify' {
  interface FastifyInstance {
    restwellPatch: RestwellPatchApi
  }
  interface FastifyRequest {
    /** The request's patch, parsed and checked; `null` on routes that do not use the plugin. */
    readonly patch: ParsedPatch | null
    /**
     * Applies the request's patch to the current document and returns the new one (the input
     * is not changed). Throws 409/422 `HttpError`s: a failed `test`, a missing target, a
     * changed read-only field, a result that does not match the resource schema.
     */
    applyPatch<T>(current: T): T
  }
  interface FastifyContextConfig {
    /** `@restwell/patch` on this route: `false` off, `true` or settings on. */
    patch?: boolean | PatchRouteConfig
  }
}
