/** Options of `@restwell/methods`. */
import { type Static, Type } from '@sinclair/typebox'

export const MethodsOptionsSchema = Type.Object(
  {
    autoOptions: Type.Optional(Type.Boolean()),
    notImplemented: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

/**
 * @param autoOptions Answer OPTIONS on every existing path that has no OPTIONS route: 200, `Allow`, `Cache-Control: no-store`. [true]
 * @param notImplemented Answer 501 to a method the server does not know at all (not in `fastify.supportedMethods`). [true]
 */
export type MethodsOptions = Static<typeof MethodsOptionsSchema>

export interface ResolvedMethodsOptions {
  autoOptions: boolean
  notImplemented: boolean
}

export function resolveMethodsOptions(options: MethodsOptions): ResolvedMethodsOptions {
  return {
    autoOptions: options.autoOptions ?? true,
    notImplemented: options.notImplemented ?? true,
  }
}
