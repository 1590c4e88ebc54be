/**
 * @restwell/core: what a plugin author needs to write a convention (a step in each phase of a
 * request, declared once with `defineConvention`, run alone by `conventionPlugin` or by the
 * umbrella's pipeline) and to read what the other conventions decided for a request.
 * `@restwell/core/internal` holds the rest of the kernel, for restwell's own packages only.
 */
// Importing this package keeps one tick object alive, as `@restwell/core/internal` does.
import './tick-shape.js'

export {
  type AppPhase,
  type AppSteps,
  type Contributions,
  type Convention,
  type ConventionSpec,
  defineConvention,
  type OptionNaming,
  optionNaming,
  type Phase,
  type RouteContext,
  type RouteDescription,
  type RoutePhase,
  type RouteSteps,
  type SetupContext,
} from './convention.js'
export { conventionPlugin } from './run.js'
export type { RouteEntry } from './routes.js'
export {
  type BodyStep,
  bodyStep,
  type RequestBody,
  type RequestStep,
  type SendStep,
  type SerializeStep,
  type StepOutcome,
} from './plan.js'
export { appendVary, mergeVary } from './vary.js'
export { appendLink } from './link.js'
export { RegistrationError } from './registration.js'
export { routeName } from './twins.js'
export {
  apiVersionsOf,
  authenticates,
  bodyBytesOf,
  mediaTypeOf,
  type PageInfo,
  type PageLinks,
  pageOf,
  representationOf,
} from './contracts.js'
