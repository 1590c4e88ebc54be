/** /v2/books: version 2 of the book representation (the author embedded, `published` grouped). */
import type { FastifyInstance } from 'fastify'
import type { Database } from '../db.js'
import { bookV2Stamps, findBookV2, listBooksV2 } from '../repository.js'
import { BookV2, IdParams, Page } from '../schemas.js'
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
          // The author is embedded: the tag is made of both rows' versions, so renaming the
          // author changes it, and Last-Modified is the later of both. `v2` first: the same URL
          // (`/books/1`) answers version 1 or 2 by Accept, and the two must not share a tag.
          getValidator: async (request) => {
            const stamps = await bookV2Stamps(db, (request.params as IdParams).id)
            return stamps === undefined
              ? null
              : {
                  etag: ['v2', stamps.book.version, stamps.author.version],
                  lastModified: [stamps.book.updatedAt, stamps.author.updatedAt],
                }
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
