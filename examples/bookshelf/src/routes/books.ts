/**
 * /v1/books and /v1/books/{id}: filters, sort, pages, a QUERY search, conditional writes, patch,
 * soft delete.
 */
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { httpErrors } from 'restwell'
import { BookSearch, equivalentQuery, searchCondition } from '../book-search.js'
import type { Database, Queryable } from '../db.js'
import {
  type BookFields,
  bookStamp,
  findAuthor,
  findBook,
  type Inclusion,
  insertBook,
  listBooks,
  pageOfBooks,
  type SortKey,
  softDeleteBook,
  type Stored,
  updateBook,
} from '../repository.js'
import { Book, BookInput, BookStatus, Id, IdParams, Page } from '../schemas.js'
import { present } from '../labels.js'
import { checkedVersion, stampValidator } from '../validators.js'

export const READ = { scopes: ['read'] }
export const WRITE = { scopes: ['write'] }

export const BookQuery = Type.Object({
  status: Type.Optional(BookStatus),
  authorId: Type.Optional(Id()),
})

export const BookReplacement = Type.Object(
  {
    title: BookInput.properties.title,
    isbn: BookInput.properties.isbn,
    status: BookStatus,
    authorId: BookInput.properties.authorId,
    publishedAt: BookInput.properties.publishedAt,
  },
  { additionalProperties: false, title: 'BookReplacement' },
)

/** `config.pagination` of every book collection. */
/** Statuses a book write answers besides restwell's (the document gives them the error body). */
const BOOK_CONFLICT = { description: 'Conflict: the ISBN is catalogued already (`ISBN_TAKEN`)' }
const NO_SUCH_AUTHOR = { description: 'Unprocessable Content: no such author (`UNKNOWN_AUTHOR`)' }

export const BOOK_PAGINATION = {
  sortable: ['title', 'publishedAt', 'createdAt'],
  defaultSort: 'title',
}

export interface PageRequest {
  limit: number
  offset: number
  sort: readonly SortKey[]
  filters: Readonly<Record<string, unknown>>
}

/** `request.pagination` (always set on routes with `config.pagination`). */
export function pageOf(request: FastifyRequest): PageRequest {
  const page = request.pagination
  if (page === null) throw httpErrors.internalServerError('route is not paginated')
  return page
}

export function inclusionOf(request: FastifyRequest): Inclusion {
  return request.softDelete?.include ?? 'active'
}

/**
 * Sends the stored resource's validators with a write's answer, so the next write can chain
 * (restwell tags the version for the representation the request gets).
 */
export function sendValidators(reply: FastifyReply, stored: Stored<unknown>): void {
  reply.etag(stored.stamp.version).lastModified(stored.stamp.updatedAt)
}

async function requireAuthor(db: Queryable, authorId: number, field: string): Promise<void> {
  if ((await findAuthor(db, authorId)) === undefined) {
    throw httpErrors.unprocessableEntity(`No author ${authorId}`, {
      code: 'UNKNOWN_AUTHOR',
      details: [{ field, message: `author ${authorId} does not exist`, code: 'UNKNOWN_AUTHOR' }],
    })
  }
}

async function requireFreeIsbn(db: Queryable, isbn: string, except?: number): Promise<void> {
  const taken = await db.query<{ id: number }>('select id from books where isbn = $1', [isbn])
  const other = taken.rows.find((row) => row.id !== except)
  if (other !== undefined) {
    throw httpErrors.conflict(`ISBN ${isbn} is already catalogued as book ${other.id}`, {
      code: 'ISBN_TAKEN',
      details: [{ field: 'body/isbn', message: 'already catalogued', code: 'DUPLICATE' }],
    })
  }
}

const lostRace = (): Error =>
  httpErrors.preconditionFailed('The resource changed while the request was processed', {
    code: 'PRECONDITION_FAILED',
    details: [{ field: 'headers/if-match', message: 'no longer current', code: 'STALE' }],
  })

const UNPROCESSABLE_QUERY = {
  description:
    'Unprocessable Content: the query names an unknown field or operator, or a value of the wrong type',
}

/**
 * `GET /v1/books` with the request's own parameters (page, limit, deleted...: a QUERY takes
 * only those a GET takes too) and the query's filters and sort.
 */
export function listingOf(url: string, query: URLSearchParams): string {
  const params = new URLSearchParams(url.split('?')[1] ?? '')
  for (const [name, value] of query) params.set(name, value)
  // A comma is a sub-delimiter (RFC 3986 §2.2): `sort=-publishedAt,title` as the GET's links write it.
  const search = params.toString().replaceAll('%2C', ',')
  return `/v1/books${search === '' ? '' : `?${search}`}`
}

export function notFound(kind: string, id: number): Error {
  return httpErrors.notFound(`No ${kind} ${id}`)
}

export async function booksRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts
  const conditional = {
    getValidator: stampValidator((request) => bookStamp(db, (request.params as IdParams).id)),
    requirePrecondition: true,
    // PUT replaces an existing book only (books are created by POST): a write to a missing one
    // is 404, whatever precondition it carries, rather than 412 or 428.
    creates: false,
  }

  app.get<{ Querystring: typeof BookQuery.static }>(
    '/books',
    {
      schema: {
        summary: 'List books',
        description:
          'Filter with `status` and `authorId`, sort with `sort=title|publishedAt|createdAt` (`-` for descending), page with `page` and `limit`; `deleted=include|only` shows soft-deleted books.',
        tags: ['books'],
        querystring: BookQuery,
        response: { 200: Page(Book) },
      },
      config: { pagination: BOOK_PAGINATION, softDelete: true, auth: READ },
    },
    async (request, reply) => {
      const page = pageOf(request)
      const { items, total } = await listBooks(db, {
        filters: page.filters as { status?: BookStatus; authorId?: number },
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

  app.route<{ Body: BookSearch }>({
    method: 'QUERY',
    url: '/books',
    schema: {
      summary: 'Search books',
      description:
        'The query in the body (`Content-Type: application/json`): `where` (`title`, `author`: a value or `{"contains": "…"}`; `authorId`, `status`: a value or `{"in": […]}`; `year`, `publishedAt`: a value or `{"gte": …, "lt": …}`), `orderBy` (`[{"field": "publishedAt", "direction": "desc"}]`). Paged like `GET /v1/books` (`page`, `limit`); `Location` names that GET when it lists the same books.',
      tags: ['books'],
      body: BookSearch,
      response: { 200: Page(Book), 422: UNPROCESSABLE_QUERY },
    },
    // `?sort=` is the GET's: a QUERY orders by its `orderBy`.
    config: { pagination: { sortable: [] }, softDelete: true, auth: READ },
    handler: async (request, reply) => {
      const page = pageOf(request)
      const params: unknown[] = []
      const { items, total } = await pageOfBooks(db, {
        where: searchCondition(request.body.where ?? {}, params),
        params,
        sort: (request.body.orderBy ?? [{ field: 'title' }]).map((key) => ({
          field: key.field,
          direction: key.direction ?? 'asc',
        })),
        limit: page.limit,
        offset: page.offset,
        include: inclusionOf(request),
      })
      const equivalent = equivalentQuery(request.body)
      if (equivalent !== undefined) reply.header('location', listingOf(request.url, equivalent))
      return reply.paginate(
        items.map((book) => present(book, request)),
        { total },
      )
    },
  })

  app.post<{ Body: BookInput }>(
    '/books',
    {
      schema: {
        summary: 'Catalogue a book',
        tags: ['books'],
        body: BookInput,
        response: { 201: Book, 409: BOOK_CONFLICT, 422: NO_SUCH_AUTHOR },
      },
      config: { auth: WRITE, idempotency: true },
    },
    async (request, reply) => {
      const stored = await db.transaction(async (tx) => {
        await requireAuthor(tx, request.body.authorId, 'body/authorId')
        await requireFreeIsbn(tx, request.body.isbn)
        return insertBook(tx, request.body)
      })
      sendValidators(reply, stored)
      return reply.created(`/v1/books/${stored.resource.id}`, present(stored.resource, request))
    },
  )

  app.get<{ Params: IdParams }>(
    '/books/:id',
    {
      schema: { summary: 'A book', tags: ['books'], params: IdParams, response: { 200: Book } },
      config: { conditional, softDelete: true, auth: READ },
    },
    async (request) => {
      const stored = await findBook(db, request.params.id)
      if (stored === undefined) throw notFound('book', request.params.id)
      return present(stored.resource, request)
    },
  )

  async function write(
    request: FastifyRequest<{ Params: IdParams }>,
    change: (tx: Queryable, current: Stored<Book>) => Promise<Stored<Book> | undefined>,
  ): Promise<Stored<Book>> {
    return db.transaction(async (tx) => {
      const current = await findBook(tx, request.params.id, true)
      if (current === undefined) throw notFound('book', request.params.id)
      const expected = checkedVersion(request)
      if (expected !== undefined && current.stamp.version !== expected) throw lostRace()
      const next = await change(tx, current)
      if (next === undefined) throw lostRace()
      return next
    })
  }

  function refuseDeleted(current: Stored<Book>): void {
    if (current.resource.deleted === true) {
      throw httpErrors.conflict(
        `Book ${current.resource.id} is deleted; restore it first with PATCH {"deleted": false}`,
        { code: 'RESOURCE_DELETED' },
      )
    }
  }

  app.put<{ Params: IdParams; Body: typeof BookReplacement.static }>(
    '/books/:id',
    {
      schema: {
        summary: 'Replace a book',
        description: 'Needs `If-Match` with the current ETag (428 without, 412 when stale).',
        tags: ['books'],
        params: IdParams,
        body: BookReplacement,
        response: { 200: Book, 409: BOOK_CONFLICT, 422: NO_SUCH_AUTHOR },
      },
      config: { conditional, auth: WRITE },
    },
    async (request, reply) => {
      const stored = await write(request, async (tx, current) => {
        refuseDeleted(current)
        await requireAuthor(tx, request.body.authorId, 'body/authorId')
        await requireFreeIsbn(tx, request.body.isbn, current.resource.id)
        return updateBook(tx, current.resource.id, request.body)
      })
      sendValidators(reply, stored)
      return present(stored.resource, request)
    },
  )

  app.patch<{ Params: IdParams }>(
    '/books/:id',
    {
      schema: {
        summary: 'Change or restore a book',
        description:
          'JSON Patch (`application/json-patch+json`) or merge patch (`application/merge-patch+json`); `{"deleted": false}` restores a soft-deleted book. Needs `If-Match`.',
        tags: ['books'],
        params: IdParams,
        response: { 200: Book },
      },
      config: { conditional, softDelete: true, auth: WRITE },
    },
    async (request, reply) => {
      const restoring = request.softDelete?.restore === true
      const stored = await write(request, async (tx, current) => {
        const next = request.applyPatch(current.resource)
        if (!restoring) {
          refuseDeleted(current)
          if (next.deleted !== undefined || next.deletedAt !== undefined) {
            throw httpErrors.unprocessableEntity('Delete a book with DELETE, not PATCH', {
              code: 'READ_ONLY_FIELD',
              details: [{ field: 'body/deleted', message: 'use DELETE', code: 'READ_ONLY' }],
            })
          }
        }
        if (next.authorId !== current.resource.authorId) {
          await requireAuthor(tx, next.authorId, 'body/authorId')
        }
        if (next.isbn !== current.resource.isbn) {
          await requireFreeIsbn(tx, next.isbn, current.resource.id)
        }
        const fields: BookFields = next
        return updateBook(tx, current.resource.id, fields, restoring ? 'restore' : 'keep')
      })
      sendValidators(reply, stored)
      return present(stored.resource, request)
    },
  )

  app.delete<{ Params: IdParams }>(
    '/books/:id',
    {
      schema: {
        summary: 'Soft-delete a book',
        description:
          'Answers 200 with the book, now carrying `deleted: true` and `deletedAt`; idempotent. Needs `If-Match` (`*` will do).',
        tags: ['books'],
        params: IdParams,
        response: { 200: Book },
      },
      config: { conditional, softDelete: true, auth: WRITE },
    },
    async (request, reply) => {
      const stored = await write(request, (tx, current) =>
        current.resource.deleted === true
          ? Promise.resolve(current)
          : softDeleteBook(tx, current.resource.id),
      )
      sendValidators(reply, stored)
      return present(stored.resource, request)
    },
  )
}
