/** Optional peer dependencies: telling "not installed" from any other failure to load. */
import { OptionsError } from '@restwell/errors'

/** Whether `error` says a module could not be found (ESM `import()` or `require`). */
export function isModuleNotFound(error: unknown): boolean {
  // A loader hook (tsx, a test runner) can drop `code` on the way back: the message says it too.
  const { code, message } = Object(error) as { code?: unknown; message?: unknown }
  return (
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    (typeof message === 'string' && /^Cannot find (?:module|package) /.test(message))
  )
}

const loadMultipart = () => import('@fastify/multipart')
type Multipart = Awaited<ReturnType<typeof loadMultipart>>

/**
 * `@fastify/multipart`, an optional peer dependency, imported when multipart is turned on. Not
 * installed: an `OptionsError` on `multipart` naming the package to install.
 */
export async function importMultipart(
  load: () => Promise<Multipart> = loadMultipart,
): Promise<Multipart> {
  try {
    return await load()
  } catch (error) {
    if (!isModuleNotFound(error)) throw error
    throw new OptionsError(
      '@restwell/negotiation',
      'multipart',
      `needs the optional peer dependency @fastify/multipart: install it (npm install @fastify/multipart); it could not be loaded (${String((error as Error).message)})`,
    )
  }
}
