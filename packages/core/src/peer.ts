/** Optional peer dependencies, imported with `import()` where they are configured. */

/**
 * Whether `error` says a module could not be found (ESM `ERR_MODULE_NOT_FOUND`, CommonJS
 * `MODULE_NOT_FOUND`, or only the message, which a loader hook such as tsx may leave alone):
 * an optional peer that is not installed, for the plugin to name in an `OptionsError`.
 *
 * @param error what the `import()` rejected with
 * @example
 * try { return await import('ioredis') } catch (error) { if (isModuleNotFound(error)) throw new OptionsError(...) }
 */
export function isModuleNotFound(error: unknown): boolean {
  const { code, message } = Object(error) as { code?: unknown; message?: unknown }
  return (
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    (typeof message === 'string' && /^Cannot find (?:module|package) /.test(message))
  )
}
