/** Optional peer dependencies, imported where an option needs them. */
import { isModuleNotFound } from '@restwell/core/internal'
import { OptionsError } from './validate-options.js'

/** What an option needs installed, as its registration error says it. */
export interface Peer {
  /** The plugin whose option needs the peer, as messages name it: `@restwell/jobs`. */
  readonly plugin: string
  /** The option that needs it: `store`. */
  readonly option: string
  /**
   * What the option is and what to install, after the option's name:
   * `is a Redis store, which needs the optional peer dependency ioredis: install it (npm install ioredis)`.
   */
  readonly needs: string
}

/**
 * Imports the optional peer `name` with `load`. Not installed: an `OptionsError` on the peer's
 * option, naming what to install and what could not be loaded. Any other failure (a syntax
 * error in the module, an ESM/CommonJS mismatch) is passed on as it is.
 *
 * @example
 * const { Redis } = await importPeer(REDIS_STORE, 'ioredis', () => import('ioredis'))
 */
export async function importPeer<T>(peer: Peer, name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    if (!isModuleNotFound(error)) throw error
    const { message } = error as { message?: unknown }
    throw new OptionsError(
      peer.plugin,
      peer.option,
      `${peer.needs}; ${name} could not be loaded (${String(message)})`,
    )
  }
}
