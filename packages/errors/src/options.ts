/** Options of `@restwell/errors`. */
import { type Static, Type } from '@sinclair/typebox'
import type { ErrorFormat } from './body.js'

export const ErrorsOptionsSchema = Type.Object(
  {
    format: Type.Optional(
      Type.Union([
        Type.Literal('simple'),
        Type.Literal('validation'),
        Type.Literal('structured'),
        Type.Literal('problem'),
      ]),
    ),
    requestIdHeader: Type.Optional(
      Type.Union([Type.String({ pattern: '^[A-Za-z0-9-]+$' }), Type.Literal(false)]),
    ),
    problemTypeBase: Type.Optional(Type.String({ minLength: 1 })),
    notFoundHandler: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

/**
 * @param format Error body form: `simple`, `validation`, `structured` or `problem`. [`structured`]
 * @param requestIdHeader Header read for an incoming id and echoed on every response; `false` for none. [`x-request-id`]
 * @param problemTypeBase Base URI for problem+json `type` (`<base><code>`). [`about:blank` type]
 * @param notFoundHandler Install the 404 handler. [true]
 */
export type ErrorsOptions = Static<typeof ErrorsOptionsSchema>

export interface ResolvedErrorsOptions {
  format: ErrorFormat
  requestIdHeader: string | false
  problemTypeBase: string | undefined
  notFoundHandler: boolean
}

export function resolveErrorsOptions(options: ErrorsOptions): ResolvedErrorsOptions {
  return {
    format: options.format ?? 'structured',
    requestIdHeader:
      options.requestIdHeader === false
        ? false
        : (options.requestIdHeader ?? 'x-request-id').toLowerCase(),
    problemTypeBase: options.problemTypeBase,
    notFoundHandler: options.notFoundHandler ?? true,
  }
}
