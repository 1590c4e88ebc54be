/** What the step of `@restwell/methods` reads: its options, and what the app is known to route. */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ResolvedMethodsOptions } from './options.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/methods'

/** The settings of one registration. */
export interface MethodsSettings extends ResolvedMethodsOptions {
  /** The instance whose router the step asks. */
  readonly fastify: FastifyInstance
  /**
   * Marks the requests this registration has judged (the not-found path may run the step
   * twice). One symbol per registration, so a second one (a child scope) judges for itself.
   */
  readonly judged: symbol
  /** Methods that have routes, known at ready: the 405 path asks the router about these only. */
  routed: string[] | undefined
  /**
   * Methods Node parses that the app knows (routable or refused), read on the first not-found
   * request: by then no method can be added (`fastify.supportedMethods` builds a new array on
   * every read).
   */
  known: ReadonlySet<string> | undefined
}

/** Whether `settings`' registration has judged `request` already; marks it judged. */
export function judgedBefore(settings: MethodsSettings, request: FastifyRequest): boolean {
  const marks = request as unknown as Record<symbol, boolean>
  if (marks[settings.judged]) return true
  marks[settings.judged] = true
  return false
}
