/** /v2/books: version 2 of the book representation (the author embedded, `published` grouped). */
import type { FastifyInstance } from 'fastify'
import type { Database } from '../db.js'
import { findBookV2, listBooksV2 } from '../repository.js'
import { BookV2, IdParams, Page } from '../schemas.js'
import { stampValidator } from '../validators.js'
import { BOOK_PAGINATION, BookQuery, notFound, pageOf, READ } from './books.js'

export async function v2Routes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts

  app.get<{ Querystring: typeof BookQuery.static }>(
    '/books',
    {
      schema: {
        summary: 'List books (version 2)',
        tags: ['v2'],
        querystring: BookQuery,
        response: { 200: Page(BookV2) },
      },
      config: { pagination: BOOK_PAGINATION, auth: READ },
    },
    async (request, reply) => {
      const page = pageOf(request)
      const { items, total } = await listBooksV2(db, {
        filters: page.filters as typeof BookQuery.static,
        sort: page.sort,
        limit: page.limit,
        offset: page.offset,
      })
      return reply.paginate(items, { total })
    },
  )

  app.get<{ Params: IdParams }>(
    '/books/:id',
    {
      schema: {
        summary: 'A book (version 2)',
        tags: ['v2'],
        params: IdParams,
        response: { 200: BookV2 },
      },
      config: {
        conditional: {
          // A v2 representation's tag must differ from v1's: the version plus `v2`.
          getValidator: async (request) => {
            const validator = await stampValidator(async (r) => {
              const found = await findBookV2(db, (r.params as IdParams).id)
              return found === undefined || found.deleted ? undefined : found.stamp
            })(request)
            return validator === null ? null : { ...validator, etag: `${validator.etag}-v2` }
          },
        },
        auth: READ,
      },
    },
    async (request) => {
      const found = await findBookV2(db, request.params.id)
      // Version 2 no longer shows soft-deleted books.
      if (found === undefined || found.deleted) throw notFound('book', request.params.id)
      return found.resource
    },
  )
}
