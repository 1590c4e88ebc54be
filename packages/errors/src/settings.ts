/** What the steps and handlers of `@restwell/errors` read, made once per registration. */
import type { ErrorRenderer } from './augment.js'
import type { ErrorFormat } from './body.js'
import type { ResolvedErrorsOptions } from './options.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/errors'

/** The settings of one registration: its options, and the little state the app's life sets. */
export interface ErrorsSettings {
  readonly format: ErrorFormat
  /** The header that carries the request id (lower case), or false. */
  readonly requestIdHeader: string | false
  readonly problemTypeBase: string | undefined
  /** Renderers of other representations, in the order added (`restwellErrors.addRenderer`). */
  readonly renderers: ErrorRenderer[]
  /**
   * The routes, as `METHOD url`, added at the root before the plugin with Fastify's default
   * error handler: their errors are answered on the way out (see defaulted.ts).
   */
  readonly defaulted: ReadonlySet<string>
  /** Set once the app starts closing (`preClose`): requests still arriving are refused. */
  closing: boolean
}

/** The settings of a registration with `options`, before the app runs. */
export function errorsSettings(
  options: ResolvedErrorsOptions,
  defaulted: ReadonlySet<string>,
): ErrorsSettings {
  return {
    format: options.format,
    requestIdHeader: options.requestIdHeader,
    problemTypeBase: options.problemTypeBase,
    renderers: [],
    defaulted,
    closing: false,
  }
}
