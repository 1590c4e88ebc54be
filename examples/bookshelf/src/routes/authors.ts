/** /v1/authors, /v1/authors/{id} and /v1/authors/{id}/books. */
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { httpErrors } from 'restwell'
import type { Database } from '../db.js'
import {
  authorStamp,
  deleteAuthor,
  findAuthor,
  insertAuthor,
  listAuthors,
  listBooks,
  type Stored,
  updateAuthor,
} from '../repository.js'
import { Author, AuthorInput, Book, type BookStatus, IdParams, NoBody, Page } from '../schemas.js'
import { present } from '../labels.js'
import { checkedVersion, stampValidator } from '../validators.js'
import {
  BOOK_PAGINATION,
  inclusionOf,
  notFound,
  pageOf,
  READ,
  sendValidators,
  WRITE,
} from './books.js'

const AuthorBooksQuery = Type.Object({
  status: Type.Optional(Book.properties.status),
})

export async function authorsRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts
  const conditional = {
    getValidator: stampValidator((request) => authorStamp(db, (request.params as IdParams).id)),
    requirePrecondition: true,
    // PUT replaces an existing author only (authors are created by POST): a write to a missing one
    // is 404, whatever precondition it carries, rather than 412 or 428.
    creates: false,
  }

  app.get(
    '/authors',
    {
      schema: {
        summary: 'List authors',
        description: 'Sort with `sort=name|createdAt`; page with `page` and `limit`.',
        tags: ['authors'],
        response: { 200: Page(Author) },
      },
      config: { pagination: { sortable: ['name', 'createdAt'], defaultSort: 'name' }, auth: READ },
    },
    async (request, reply) => {
      const page = pageOf(request)
      const { items, total } = await listAuthors(db, page)
      return reply.paginate(items, { total })
    },
  )

  app.post<{ Body: AuthorInput }>(
    '/authors',
    {
      schema: {
        summary: 'Add an author',
        tags: ['authors'],
        body: AuthorInput,
        response: { 201: Author },
      },
      config: { auth: WRITE },
    },
    async (request, reply) => {
      const stored = await insertAuthor(db, request.body)
      sendValidators(reply, stored)
      return reply.created(`/v1/authors/${stored.resource.id}`, stored.resource)
    },
  )

  app.get<{ Params: IdParams }>(
    '/authors/:id',
    {
      schema: {
        summary: 'An author',
        tags: ['authors'],
        params: IdParams,
        response: { 200: Author },
      },
      config: { conditional, auth: READ },
    },
    async (request) => {
      const stored = await findAuthor(db, request.params.id)
      if (stored === undefined) throw notFound('author', request.params.id)
      return stored.resource
    },
  )

  async function change(
    request: FastifyRequest<{ Params: IdParams }>,
    next: (current: Author) => AuthorInput,
  ): Promise<Stored<Author>> {
    return db.transaction(async (tx) => {
      const current = await findAuthor(tx, request.params.id, true)
      if (current === undefined) throw notFound('author', request.params.id)
      if (current.stamp.version !== checkedVersion(request)) {
        throw httpErrors.preconditionFailed('The author changed while the request was processed')
      }
      const input = next(current.resource)
      const saved = await updateAuthor(tx, request.params.id, {
        name: input.name,
        ...(input.bio === undefined ? {} : { bio: input.bio }),
      })
      return saved as Stored<Author>
    })
  }

  app.put<{ Params: IdParams; Body: AuthorInput }>(
    '/authors/:id',
    {
      schema: {
        summary: 'Replace an author',
        description: 'Needs `If-Match`.',
        tags: ['authors'],
        params: IdParams,
        body: AuthorInput,
        response: { 200: Author },
      },
      config: { conditional, auth: WRITE },
    },
    async (request, reply) => {
      const stored = await change(request, () => request.body)
      sendValidators(reply, stored)
      return stored.resource
    },
  )

  app.patch<{ Params: IdParams }>(
    '/authors/:id',
    {
      schema: {
        summary: 'Change an author',
        description: 'JSON Patch or merge patch; needs `If-Match`.',
        tags: ['authors'],
        params: IdParams,
        response: { 200: Author },
      },
      config: { conditional, auth: WRITE },
    },
    async (request, reply) => {
      const stored = await change(request, (current) => request.applyPatch(current))
      sendValidators(reply, stored)
      return stored.resource
    },
  )

  app.delete<{ Params: IdParams }>(
    '/authors/:id',
    {
      schema: {
        summary: 'Delete an author without books',
        description: 'A hard delete: 204. 409 while books refer to the author. Needs `If-Match`.',
        tags: ['authors'],
        params: IdParams,
        response: { 204: NoBody('Deleted') },
      },
      config: { conditional, auth: WRITE },
    },
    async (request, reply) => {
      const outcome = await deleteAuthor(db, request.params.id)
      if (outcome === 'missing') throw notFound('author', request.params.id)
      if (outcome === 'has-books') {
        throw httpErrors.conflict(
          `Author ${request.params.id} still has books; delete or move them first`,
          { code: 'AUTHOR_HAS_BOOKS' },
        )
      }
      return reply.code(204).send()
    },
  )

  app.get<{ Params: IdParams; Querystring: typeof AuthorBooksQuery.static }>(
    '/authors/:id/books',
    {
      schema: {
        summary: "An author's books",
        tags: ['authors', 'books'],
        params: IdParams,
        querystring: AuthorBooksQuery,
        response: { 200: Page(Book) },
      },
      config: {
        pagination: BOOK_PAGINATION,
        softDelete: true,
        auth: READ,
        // the books of an author live at /v1/books/:id, not under the author
        negotiation: { type: 'books', itemPath: '/v1/books' },
      },
    },
    async (request, reply) => {
      if ((await findAuthor(db, request.params.id)) === undefined) {
        throw notFound('author', request.params.id)
      }
      const page = pageOf(request)
      const { items, total } = await listBooks(db, {
        filters: {
          ...(page.filters as { status?: BookStatus }),
          authorId: request.params.id,
        },
        sort: page.sort,
        limit: page.limit,
        offset: page.offset,
        include: inclusionOf(request),
      })
      return reply.paginate(
        items.map((book) => present(book, request)),
        { total },
      )
    },
  )
}
