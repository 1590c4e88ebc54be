/** `defineValidator`: a route's `getValidator` with its request typed as the route's. */
import type { RouteGenericInterface } from 'fastify'
import type { GetValidator } from './augment.js'

/**
 * Returns `read` as a `config.conditional.getValidator`, its request typed by `RouteGeneric`
 * (Fastify types a route's `config` without the route's generics, so they cannot reach it).
 *
 * @example
 * const conditional = {
 *   getValidator: defineValidator<{ Params: { id: string } }>(async (request) => {
 *     const book = await findBookMeta(request.params.id)
 *     return book && { etag: book.version, lastModified: book.updatedAt }
 *   }),
 * }
 * app.put<{ Params: { id: string } }>('/books/:id', { config: { conditional } }, replaceBook)
 */
export function defineValidator<RouteGeneric extends RouteGenericInterface>(
  read: GetValidator<RouteGeneric>,
): GetValidator {
  return read as GetValidator
}
