/** An in-memory book store and app shared by the soft-delete tests. */
import { httpErrors, restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import {
  filterDeleted,
  markDeleted,
  restore,
  type SoftDeleteOptions,
  restwellSoftDelete,
} from '../src/index.js'

export interface Book {
  id: number
  title: string
  deleted?: boolean
  deletedAt?: string | null
}

export function seed(): Map<number, Book> {
  return new Map([
    [1, { id: 1, title: 'Dune' }],
    [2, { id: 2, title: 'Emma' }],
    [3, { id: 3, title: 'Ulysses', deleted: true, deletedAt: '2025-03-04T05:06:07.000Z' }],
  ])
}

export async function buildApp(
  options: SoftDeleteOptions = {},
  store: Map<number, Book> = seed(),
): Promise<{ app: FastifyInstance; store: Map<number, Book> }> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellSoftDelete, options)
  const find = (id: string): Book => {
    const book = store.get(Number(id))
    if (book === undefined) throw httpErrors.notFound(`No book ${id}`)
    return book
  }
  app.get('/books', { config: { softDelete: true } }, async (request) =>
    filterDeleted([...store.values()], request.softDelete?.include ?? 'active'),
  )
  app.get('/books/:id', { config: { softDelete: true } }, async (request) =>
    find((request.params as { id: string }).id),
  )
  app.delete('/books/:id', { config: { softDelete: true } }, async (request) => {
    const id = (request.params as { id: string }).id
    const deleted = markDeleted(find(id))
    store.set(deleted.id, deleted)
    return deleted
  })
  app.patch('/books/:id', { config: { softDelete: true } }, async (request) => {
    const id = (request.params as { id: string }).id
    let book: Book = find(id)
    if (request.softDelete?.restore) book = restore(book)
    const { deleted: _d, deletedAt: _a, ...changes } = request.body as Partial<Book>
    book = { ...book, ...changes }
    store.set(book.id, book)
    return book
  })
  app.delete('/archive/:id', { config: { softDelete: { mode: 'hard' } } }, async (request) => {
    const book = find((request.params as { id: string }).id)
    store.delete(book.id)
    return book
  })
  return { app, store }
}
