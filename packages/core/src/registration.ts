/** One registration of a restwell plugin per scope chain, refused with the fix otherwise. */
import type { FastifyInstance } from 'fastify'
import { pipelineOf } from './plan.js'

/** How a plugin may be registered beside another registration of itself. */
export interface RegisterOnceOptions {
  /**
   * `'chain'` (default): once per scope chain, sibling scopes each once. `'instance'`: once per
   * instance, child scopes again (a plugin whose options may differ per scope).
   */
  scope?: 'chain' | 'instance'
  /**
   * Whether the plugin hands steps to the umbrella's pipeline (default true): such a plugin
   * registered after the umbrella has made its plans is refused, since its steps would never
   * run. A plugin that only adds routes or decorators may come later.
   */
  steps?: boolean
}

/**
 * A restwell plugin registered where it cannot work: twice on one scope chain, or after the
 * umbrella has made its plans. Thrown at registration (or `ready()`), logger or not.
 *
 * @example
 * await app.register(restwellCors).register(restwellCors)
 * await app.ready().catch((error) => error instanceof RegistrationError) // true
 */
export class RegistrationError extends Error {
  override readonly name: string = 'RegistrationError'
  readonly code: string = 'RESTWELL_REGISTRATION'
}

/**
 * Claims `plugin` for `fastify`; call it first, before the plugin decorates anything. A second
 * registration fails here with the fix, instead of on a decorator both would add, and so does a
 * plugin handing over steps after the umbrella made its plans. `umbrellaOption` is the restwell
 * umbrella's option for the plugin.
 */
export function registerOnce(
  fastify: FastifyInstance,
  plugin: string,
  umbrellaOption: string,
  { scope = 'chain', steps = true }: RegisterOnceOptions = {},
): void {
  const key = Symbol.for(`restwell.registered:${plugin}`)
  // A child scope's instance inherits its parent's properties (Fastify makes it with Object.create).
  const taken = scope === 'chain' ? key in fastify : Object.hasOwn(fastify, key)
  if (taken) throw registeredTwice(plugin, umbrellaOption, pipelineOf(fastify) !== undefined)
  if (steps && pipelineOf(fastify)?.sealed === true) {
    throw new RegistrationError(
      `${plugin}: registered after restwell, which has made every route's plan: its steps would never run. Pass these options to restwell as \`${umbrellaOption}\` (a route's own settings go in its config).`,
    )
  }
  Object.defineProperty(fastify, key, { value: true })
}

/**
 * The error of a restwell plugin registered twice on one instance or scope chain, with the fix:
 * under the umbrella (`umbrella`, the default), its option is named.
 */
export function registeredTwice(
  plugin: string,
  umbrellaOption: string,
  umbrella = true,
): RegistrationError {
  const fix = umbrella
    ? `The restwell umbrella registers it unless its \`${umbrellaOption}\` option is false: pass these options to restwell as \`${umbrellaOption}\`, or set \`${umbrellaOption}: false\` there and register ${plugin} once.`
    : `Register it once, at the level whose routes it serves.`
  return new RegistrationError(
    `${plugin}: registered twice on this instance (or on it and a parent scope). ${fix}`,
  )
}

/**
 * Refuses `official`, a plugin that does the job of the one calling this (as `hasPlugin` knows
 * it), beside it: registered before, registration fails now; registered after, `ready()` does.
 *
 * @param fastify the instance the calling plugin is registered on
 * @param official the other plugin's name (`@fastify/cors`)
 * @param refusal the error for a plugin registered `'before'` or `'after'`, with the fix
 * @example
 * refuseBeside(fastify, '@fastify/cors', (when) => new RegistrationError(`… ${when} …`))
 */
export function refuseBeside(
  fastify: FastifyInstance,
  official: string,
  refusal: (when: 'before' | 'after') => Error,
): void {
  if (fastify.hasPlugin(official)) throw refusal('before')
  fastify.addHook('onReady', async function restwellRefuseBeside() {
    if (fastify.hasPlugin(official)) throw refusal('after')
  })
}
