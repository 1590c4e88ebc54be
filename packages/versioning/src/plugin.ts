/** The `@restwell/versioning` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { versioning } from './convention.js'

/**
 * API versions for Fastify v5: routes live under `/v<N>` prefixes; a version carried by `Accept:
 * application/vnd.api.v<N>+json` or `?version=<N>`, or the default one, serves an unprefixed
 * request through the route's unprefixed twin, reached by routing once. Options:
 * {@link VersioningOptions}.
 * @example
 * await app.register(restwellVersioning, { retired: { 1: { deprecation: '2025-01-01', successor: 2 } } })
 * await app.register(versioned(1, async (v1) => { v1.get('/books', list) }))
 */
export const restwellVersioning = conventionPlugin(versioning)
