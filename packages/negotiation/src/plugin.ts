/** The `@restwell/negotiation` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { negotiation } from './convention.js'

/**
 * Content negotiation for a Fastify API (spec 4.5): `Accept` with q-values and `?format=`,
 * 406/415/300, `Vary`, `Accept-Language`, `Accept-Charset`; JSON, XML, HAL, JSON:API and Siren;
 * form-urlencoded and multipart bodies.
 *
 * @example
 * await app.register(restwellErrors)
 * await app.register(restwellNegotiation, { languages: ['en', 'de'] })
 * app.get('/books/:id', { config: { negotiation: { type: 'books' } } }, handler)
 */
export const restwellNegotiation = conventionPlugin(negotiation)
