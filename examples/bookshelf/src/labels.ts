/** The one localized field: a book's status in the language `Accept-Language` chose. */
import type { FastifyRequest } from 'fastify'
import type { Book, BookStatus } from './schemas.js'

/** The language of a request that chose none (the first of the app's `LANGUAGES`). */
export const DEFAULT_LANGUAGE = 'en'

const LABELS: Readonly<Record<string, Readonly<Record<BookStatus, string>>>> = {
  en: { available: 'Available', 'checked-out': 'Checked out', archived: 'Archived' },
  de: { available: 'Verfügbar', 'checked-out': 'Ausgeliehen', archived: 'Archiviert' },
  fr: { available: 'Disponible', 'checked-out': 'Emprunté', archived: 'Archivé' },
}

/** The book with `statusLabel` in the request's language (`request.language`, else English). */
export function present(book: Book, request: FastifyRequest): Book {
  const language = request.language ?? DEFAULT_LANGUAGE
  const labels = LABELS[language] ?? (LABELS[DEFAULT_LANGUAGE] as Record<BookStatus, string>)
  return { ...book, statusLabel: labels[book.status] }
}
