/** Optional peer dependencies of negotiation. */
import { importPeer } from '@restwell/errors'

const loadMultipart = () => import('@fastify/multipart')
type Multipart = Awaited<ReturnType<typeof loadMultipart>>

/**
 * `@fastify/multipart`, an optional peer dependency, imported when multipart is turned on. Not
 * installed: an `OptionsError` on `multipart` naming the package to install.
 */
export function importMultipart(
  load: () => Promise<Multipart> = loadMultipart,
): Promise<Multipart> {
  return importPeer(
    {
      plugin: '@restwell/negotiation',
      option: 'multipart',
      needs:
        'needs the optional peer dependency @fastify/multipart: install it (npm install @fastify/multipart)',
    },
    '@fastify/multipart',
    load,
  )
}
