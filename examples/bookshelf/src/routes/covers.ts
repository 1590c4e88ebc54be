/** /v1/books/{id}/cover: a binary image, with byte ranges (206/416) and conditional PUT. */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { httpErrors } from 'restwell'
import type { Database } from '../db.js'
import { findBook, findCover, saveCover } from '../repository.js'
import { IdParams, NoBody } from '../schemas.js'
import { notFound, READ, WRITE } from './books.js'

/** Image types a cover may have, with the bytes each starts with. */
const IMAGE_SIGNATURES: Readonly<Record<string, (data: Buffer) => boolean>> = {
  'image/png': (d) => d.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])),
  'image/jpeg': (d) => d[0] === 0xff && d[1] === 0xd8 && d[2] === 0xff,
  'image/gif': (d) => d.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (d) =>
    d.subarray(0, 4).toString('latin1') === 'RIFF' &&
    d.subarray(8, 12).toString('latin1') === 'WEBP',
}
export const COVER_TYPES: readonly string[] = Object.keys(IMAGE_SIGNATURES)
/** Binary bodies: `@restwell/negotiation` leaves these routes alone (a key it adds to route config). */
const NOT_NEGOTIATED: Record<string, unknown> = { negotiation: false }
/** Largest cover accepted (413 above). */
export const MAX_COVER_BYTES = 2 * 1024 * 1024

/** The media type of a request body, lower case, without parameters ('' when none is given). */
function mediaTypeOf(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
}

/** 415 naming the image types a cover may have, in `Accept` too (RFC 9110 §15.5.16). */
function unsupportedCoverType(): Error {
  return httpErrors.unsupportedMediaType(`A cover is one of ${COVER_TYPES.join(', ')}`, {
    headers: { accept: COVER_TYPES.join(', ') },
  })
}

export async function coversRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts
  // Images arrive as raw bytes; this encapsulated context is the only one that parses them.
  app.addContentTypeParser(
    COVER_TYPES as string[],
    { parseAs: 'buffer', bodyLimit: MAX_COVER_BYTES },
    (_request, body, done) => done(null, body),
  )

  const conditional = {
    // The cover's validators come from the database (md5 of the stored bytes), so a write is
    // checked before the upload is stored, and a GET answers 304 without reading the image.
    getValidator: async (request: { params: unknown }) => {
      const { id } = request.params as IdParams
      const result = await db.query<{ etag: string; updated_at: Date | string }>(
        'select md5(data) as etag, updated_at from book_covers where book_id = $1',
        [id],
      )
      const row = result.rows[0]
      return row === undefined ? null : { etag: row.etag, lastModified: new Date(row.updated_at) }
    },
    requirePrecondition: true,
  }

  app.get<{ Params: IdParams }>(
    '/books/:id/cover',
    {
      schema: {
        summary: "A book's cover image",
        description:
          'Binary. Supports `Range: bytes=<start>-<end>` (206 + Content-Range; 416 when unsatisfiable), `If-None-Match`, `If-Range`.',
        tags: ['covers'],
        params: IdParams,
        response: { 200: { description: 'The image', content: { 'image/*': { schema: {} } } } },
      },
      config: { conditional, auth: READ, ...NOT_NEGOTIATED },
    },
    async (request, reply) => {
      const cover = await findCover(db, request.params.id)
      if (cover === undefined) {
        if ((await findBook(db, request.params.id)) === undefined) {
          throw notFound('book', request.params.id)
        }
        throw httpErrors.notFound(`Book ${request.params.id} has no cover`)
      }
      reply.type(cover.contentType)
      return cover.data
    },
  )

  app.put<{ Params: IdParams; Body: Buffer }>(
    '/books/:id/cover',
    {
      schema: {
        summary: "Upload a book's cover",
        description: `Body: the image bytes, Content-Type one of ${COVER_TYPES.join(', ')} (at most 2 MiB). 201 when created (send \`If-None-Match: *\`), 204 when replaced (send \`If-Match\`).`,
        tags: ['covers'],
        // The media types of the body, for OpenAPI (Fastify reads no `consumes`).
        consumes: [...COVER_TYPES],
        params: IdParams,
        response: {
          201: NoBody('Created: `Location` names the cover'),
          204: NoBody('Replaced'),
          422: { description: 'Unprocessable Content: the body is not an image of its type' },
        },
      },
      config: { conditional, auth: WRITE, ...NOT_NEGOTIATED },
      // Before any body parser: a type that is not an image would otherwise be refused by the
      // parser the app has for it (or by Fastify, when none has), with a bare 415 and no Accept.
      preParsing: async (request, _reply, payload) => {
        if (IMAGE_SIGNATURES[mediaTypeOf(request)] === undefined) throw unsupportedCoverType()
        return payload
      },
    },
    async (request, reply) => {
      const type = mediaTypeOf(request)
      const matches = IMAGE_SIGNATURES[type]
      if (matches === undefined || !Buffer.isBuffer(request.body)) throw unsupportedCoverType()
      if (!matches(request.body)) {
        throw httpErrors.unprocessableEntity(`The body is not a ${type} image`, {
          code: 'INVALID_IMAGE',
          details: [{ field: 'body', message: `not a ${type} file`, code: 'SIGNATURE' }],
        })
      }
      if ((await findBook(db, request.params.id)) === undefined) {
        throw notFound('book', request.params.id)
      }
      const saved = await saveCover(db, request.params.id, type, request.body)
      reply.lastModified(saved.updatedAt)
      if (saved.replaced) return reply.code(204).send()
      return reply.created(`/v1/books/${request.params.id}/cover`)
    },
  )
}
