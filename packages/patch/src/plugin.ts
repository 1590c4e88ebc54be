/** The `@restwell/patch` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { patch } from './convention.js'

/**
 * The `@restwell/patch` plugin: every PATCH route (or those with `config.patch`) accepts
 * `application/json-patch+json` and `application/merge-patch+json`, answers 415 with
 * `Accept-Patch` otherwise, and gives the handler `request.patch` and `request.applyPatch()`.
 * Options: `PatchOptions`.
 * @example
 * await app.register(restwellPatch)
 * app.patch('/books/:id', { schema: { response: { 200: Book } } }, async (request) => {
 *   const next = request.applyPatch(await books.get(request.params.id))
 *   return books.put(request.params.id, next)
 * })
 */
export const restwellPatch = conventionPlugin(patch)
