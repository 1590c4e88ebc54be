/**
 * The reliability suite's app: the `restwell` umbrella with every plugin on (auth with a test
 * `verify`, jobs, a Redis-capable rate limit) over a small book catalogue in memory, for the
 * hostile-input and Redis-fault tests (the several-instances test runs the bookshelf example).
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { Redis } from 'ioredis'
import restwell, { clientErrorHandler, ErrorCode, genReqId, httpErrors, versioned } from 'restwell'
import { applyPagination } from '../../packages/pagination/src/array.js'
import { PATIENCE_MS } from '../helpers/patience.js'

export interface Book {
  id: number
  title: string
  year: number
  tags: string[]
  version: number
  updatedAt: string
}
export type BookInput = Pick<Book, 'title' | 'year' | 'tags'>

/** Where books live. Every method may throw (a database error). */
export interface BookStore {
  all(): Promise<Book[]>
  get(id: number): Promise<Book | undefined>
  create(input: BookInput): Promise<Book>
  /** Replaces the book when its version is still `expected` (optimistic concurrency). */
  replace(id: number, input: BookInput, expected: number): Promise<Book | 'missing' | 'conflict'>
  remove(id: number): Promise<boolean>
}

export function memoryStore(seed = 30): BookStore {
  const books = new Map<number, Book>()
  let next = 1
  const stamp = (): string => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString()
  const make = (input: BookInput): Book => {
    const book = { id: next++, ...input, version: 1, updatedAt: stamp() }
    books.set(book.id, book)
    return book
  }
  for (let i = 0; i < seed; i++) {
    make({
      title: `Book ${String(i).padStart(3, '0')}`,
      year: 1950 + (i % 70),
      tags: i % 2 ? ['odd'] : ['even'],
    })
  }
  return {
    all: async () => [...books.values()],
    get: async (id) => books.get(id),
    create: async (input) => make(input),
    replace: async (id, input, expected) => {
      const current = books.get(id)
      if (current === undefined) return 'missing'
      if (current.version !== expected) return 'conflict'
      const book = { ...current, ...input, version: current.version + 1, updatedAt: stamp() }
      books.set(id, book)
      return book
    },
    remove: async (id) => books.delete(id),
  }
}

export const TOKENS = { read: 'reader-token', write: 'writer-token' } as const
export const WRITE = { authorization: `Bearer ${TOKENS.write}` } as const
export const READ = { authorization: `Bearer ${TOKENS.read}` } as const
export const CURSOR_SECRET = 'reliability-cursor-secret-0123456789abcdef'

export interface ReliabilityAppOptions {
  store?: BookStore
  redis?: Redis
  rateLimit?: { max: number; timeWindow?: number | string; failOpen?: boolean }
  /** A route-level limit on DELETE /v1/books/:id (requests per minute). [none: the global one] */
  deleteLimit?: number
  fastify?: FastifyServerOptions
}

const BookBody = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'year'],
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    year: { type: 'integer', minimum: 0, maximum: 3000 },
    tags: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 40 } },
  },
} as const

const BookSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    title: { type: 'string', minLength: 1, maxLength: 200 },
    year: { type: 'integer', minimum: 0, maximum: 3000 },
    tags: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 40 } },
    version: { type: 'integer' },
    updatedAt: { type: 'string' },
  },
} as const

const IdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } },
} as const

const AUTHORS = Array.from({ length: 25 }, (_, i) => ({
  id: i + 1,
  name: `Author ${String.fromCharCode(65 + (i % 26))}${i}`,
}))

/** Builds one instance. The caller closes it. */
export async function buildReliabilityApp(
  options: ReliabilityAppOptions = {},
): Promise<FastifyInstance> {
  const store = options.store ?? memoryStore()
  // Registering restwell loads its optional parts (rate limit, overload, jobs): on a loaded
  // machine that outlasts Fastify's 10 s pluginTimeout, a bound on time, not on a condition.
  const app = Fastify({
    genReqId,
    clientErrorHandler,
    pluginTimeout: PATIENCE_MS,
    ...options.fastify,
  })
  await app.register(restwell, {
    methodOverride: {},
    // The overload check stays on, but with a threshold no test reaches on a shared 2-CPU
    // machine: a 503 from it would be the machine's fault, not the input's.
    underPressure: { maxEventLoopDelay: 30_000 },
    rateLimit: {
      max: options.rateLimit?.max ?? 1_000_000_000,
      timeWindow: options.rateLimit?.timeWindow ?? '1 minute',
      ...(options.rateLimit?.failOpen === undefined
        ? {}
        : { failOpen: options.rateLimit.failOpen }),
      ...(options.redis === undefined
        ? {}
        : { redis: options.redis, nameSpace: 'reliability-rl-' }),
      // Tests name their client in X-Client-Id so each scenario has its own counter (a real
      // API keys on the IP or the principal; every test request comes from 127.0.0.1).
      keyGenerator: (request) => {
        const client = request.headers['x-client-id']
        return typeof client === 'string' ? `client:${client}` : request.ip
      },
    },
    auth: {
      verify: (token: string) => {
        if (token === TOKENS.write) return { name: 'writer', scopes: ['read', 'write'] }
        if (token === TOKENS.read) return { name: 'reader', scopes: ['read'] }
        return null
      },
      requirement: { scopes: ['read'] },
    },
    negotiation: { languages: ['en', 'de', 'fr'] },
    pagination: { defaultLimit: 10, maxLimit: 50, cursorSecret: CURSOR_SECRET },
    patch: { readOnly: ['id', 'version', 'updatedAt'] },
    jobs: {
      store:
        options.redis === undefined
          ? 'memory'
          : { redis: options.redis, keyPrefix: 'reliability:jobs:' },
      pollMs: 50,
      estimatedTime: 1,
    },
  })

  const write = { auth: { scopes: ['write'] } }
  const validator = {
    getValidator: async (request: { params: unknown }) => {
      const book = await store.get((request.params as { id: number }).id)
      return book && { etag: String(book.version), lastModified: book.updatedAt }
    },
  }
  const load = async (id: number): Promise<Book> => {
    const book = await store.get(id)
    if (book === undefined) throw httpErrors.notFound(`No book ${id}`)
    return book
  }
  const save = async (id: number, input: BookInput, expected: number): Promise<Book> => {
    const result = await store.replace(id, input, expected)
    if (result === 'missing') throw httpErrors.notFound(`No book ${id}`)
    if (result === 'conflict') {
      throw httpErrors.preconditionFailed('The book changed meanwhile', {
        code: ErrorCode.PRECONDITION_FAILED,
      })
    }
    return result
  }

  app.jobs.define<{ rows?: number }>(
    'export',
    async (payload) => ({ exported: payload.rows ?? (await store.all()).length }),
    {
      estimatedTime: 1,
    },
  )

  await app.register(
    versioned(1, async (v1) => {
      v1.get(
        '/books',
        {
          schema: {
            querystring: {
              type: 'object',
              properties: {
                year: { type: 'integer' },
                title: { type: 'string', maxLength: 200 },
                tag: { type: 'array', items: { type: 'string', maxLength: 40 } },
              },
            },
          },
          config: {
            pagination: { sortable: ['title', 'year', 'id'], defaultSort: 'id' },
            negotiation: { type: 'books' },
          },
        },
        async (request, reply) => {
          const page = request.pagination!
          const filters = page.filters as { year?: number; title?: string; tag?: string[] }
          const rows = (await store.all()).filter(
            (b) =>
              (filters.year === undefined || b.year === filters.year) &&
              (filters.title === undefined || b.title === filters.title) &&
              (filters.tag === undefined || filters.tag.some((t) => b.tags.includes(t))),
          )
          const slice = applyPagination(rows, page)
          return reply.paginate(slice.items, { total: slice.total ?? rows.length })
        },
      )
      v1.get(
        '/authors',
        { config: { pagination: { cursor: true, sortable: ['name'], defaultSort: 'name' } } },
        async (request, reply) => {
          const slice = applyPagination(AUTHORS, request.pagination!)
          return reply.paginate(slice.items, { hasMore: slice.hasMore })
        },
      )
      // Form bodies are opt-in: this route takes them, so hostile forms reach the form parser.
      const forms = {
        negotiation: { consumes: ['application/json', 'application/x-www-form-urlencoded'] },
      }
      v1.post(
        '/books',
        { schema: { body: BookBody }, config: { ...write, ...forms } },
        async (request, reply) => {
          const body = request.body as BookInput
          const book = await store.create({
            title: body.title,
            year: body.year,
            tags: body.tags ?? [],
          })
          return reply.created(`/v1/books/${book.id}`, book)
        },
      )
      v1.get(
        '/books/:id',
        {
          schema: { params: IdParams },
          config: { conditional: validator, negotiation: { type: 'books' } },
        },
        async (request) => load((request.params as { id: number }).id),
      )
      v1.put(
        '/books/:id',
        {
          schema: { params: IdParams, body: BookBody },
          config: { ...write, conditional: validator },
        },
        async (request) => {
          const { id } = request.params as { id: number }
          const current = await load(id)
          const body = request.body as BookInput
          return save(
            id,
            { title: body.title, year: body.year, tags: body.tags ?? [] },
            current.version,
          )
        },
      )
      v1.patch(
        '/books/:id',
        {
          schema: { params: IdParams },
          config: { ...write, conditional: validator, patch: { schema: BookSchema } },
        },
        async (request) => {
          const { id } = request.params as { id: number }
          const current = await load(id)
          const next = request.applyPatch(current)
          return save(id, { title: next.title, year: next.year, tags: next.tags }, current.version)
        },
      )
      v1.delete(
        '/books/:id',
        {
          schema: { params: IdParams },
          config: {
            ...write,
            conditional: validator,
            ...(options.deleteLimit === undefined
              ? {}
              : { rateLimit: { max: options.deleteLimit, timeWindow: '1 minute' } }),
          },
        },
        async (request, reply) => {
          const { id } = request.params as { id: number }
          if (!(await store.remove(id))) throw httpErrors.notFound(`No book ${id}`)
          return reply.code(204).send()
        },
      )
      v1.post(
        '/exports',
        {
          schema: {
            body: {
              type: 'object',
              additionalProperties: false,
              properties: { rows: { type: 'integer', minimum: 0, maximum: 1000 } },
            },
          },
          config: write,
        },
        async (request, reply) =>
          reply.accepted(await app.jobs.enqueue('export', request.body ?? {})),
      )
    }),
  )
  await app.register(
    versioned(2, async (v2) => {
      v2.get(
        '/books/:id',
        {
          schema: { params: IdParams },
          config: { conditional: validator, negotiation: { type: 'books' } },
        },
        async (request) => {
          const book = await load((request.params as { id: number }).id)
          return { id: book.id, title: book.title, published: { year: book.year }, tags: book.tags }
        },
      )
    }),
  )
  return app
}
