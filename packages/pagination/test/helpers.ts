/** Shared fixtures of the pagination tests. */
import { restwellErrors } from '@restwell/errors'
import { type PageInfo, pageOf } from '@restwell/core'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { applyPagination, type PaginationOptions, restwellPagination } from '../src/index.js'

export const SECRET = 'a-test-secret-that-is-long-enough-0123456789'

export interface Book {
  id: number
  title: string
  year: number
  genre: 'novel' | 'poetry' | 'essay'
  available: boolean
  published: Date
}

const GENRES = ['novel', 'poetry', 'essay'] as const

/** 45 books: ids 1..45, 7 titles, 5 years, 3 genres. */
export const BOOKS: readonly Book[] = Array.from({ length: 45 }, (_, i) => ({
  id: i + 1,
  title: `title-${String.fromCharCode(97 + (i % 7))}`,
  year: 2000 + (i % 5),
  genre: GENRES[i % 3] as Book['genre'],
  available: i % 2 === 0,
  published: new Date(Date.UTC(2020, 0, 1 + i)),
}))

export interface Harness {
  app: FastifyInstance
  /** The `reply[PAGE]` of the last response. */
  page(): PageInfo | undefined
}

/** An app with errors + pagination and a `/books` collection served from `BOOKS`. */
export async function buildApp(
  options: PaginationOptions = {},
  server: FastifyServerOptions = {},
): Promise<Harness> {
  const app = Fastify(server)
  await app.register(restwellErrors)
  await app.register(restwellPagination, { cursorSecret: SECRET, ...options })
  let last: PageInfo | undefined
  app.addHook('onSend', async (_request, reply, payload) => {
    last = pageOf(reply)
    return payload
  })
  return { app, page: () => last }
}

/** The relation → target map of a `Link` header (test-side reader; our output only). */
export function links(header: string | string[] | number | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (typeof header !== 'string' || header === '') return out
  for (const part of header.split(', <')) {
    const match = /^<?([^>]*)>; rel="([a-z]+)"$/.exec(part)
    if (match === null) throw new Error(`unexpected Link part ${part}`)
    out[match[2] as string] = match[1] as string
  }
  return out
}

/** Handler serving BOOKS through applyPagination with a known total. */
export { applyPagination }
