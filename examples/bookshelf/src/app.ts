/** The bookshelf API: a small library catalogue built on Fastify + restwell. */
import Fastify, { type FastifyInstance } from 'fastify'
import restwell, { genReqId, httpErrors } from 'restwell'

export interface Book {
  id: number
  title: string
  isbn: string
  status: 'available' | 'checked-out' | 'archived'
}

const bookSchema = {
  type: 'object',
  required: ['id', 'title', 'isbn', 'status'],
  properties: {
    id: { type: 'integer' },
    title: { type: 'string' },
    isbn: { type: 'string' },
    status: { type: 'string', enum: ['available', 'checked-out', 'archived'] },
  },
} as const

const newBookSchema = {
  type: 'object',
  required: ['title', 'isbn'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 300 },
    isbn: { type: 'string', pattern: '^[0-9-]{10,17}$' },
    status: { type: 'string', enum: ['available', 'checked-out', 'archived'] },
  },
} as const

const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1 } },
} as const

export interface AppOptions {
  logger?: boolean
}

/** Builds the app with an in-memory store seeded with two books. */
export async function buildApp(options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false, genReqId })
  await app.register(restwell)

  const books = new Map<number, Book>()
  let nextId = 1
  for (const seed of [
    { title: 'The Left Hand of Darkness', isbn: '978-0441478125' },
    { title: 'A Wizard of Earthsea', isbn: '978-0547773742' },
  ]) {
    const id = nextId++
    books.set(id, { id, status: 'available', ...seed })
  }

  app.get(
    '/v1/books',
    { schema: { response: { 200: { type: 'array', items: bookSchema } } } },
    async () => [...books.values()],
  )

  app.get(
    '/v1/books/:id',
    { schema: { params: idParams, response: { 200: bookSchema } } },
    async (request) => {
      const { id } = request.params as { id: number }
      const book = books.get(id)
      if (book === undefined) throw httpErrors.notFound(`No book ${id}`)
      return book
    },
  )

  app.post(
    '/v1/books',
    { schema: { body: newBookSchema, response: { 201: bookSchema } } },
    async (request, reply) => {
      const input = request.body as Omit<Book, 'id' | 'status'> & { status?: Book['status'] }
      const id = nextId++
      const book: Book = {
        id,
        status: input.status ?? 'available',
        title: input.title,
        isbn: input.isbn,
      }
      books.set(id, book)
      return reply.created(`/v1/books/${id}`, book)
    },
  )

  app.delete('/v1/books/:id', { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params as { id: number }
    if (!books.delete(id)) throw httpErrors.notFound(`No book ${id}`)
    return reply.code(204).send()
  })

  return app
}
