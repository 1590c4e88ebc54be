/** @restwell/method-override: X-HTTP-Method-Override and ?_method= on POST, resolved before routing. */
import { restwellMethodOverride } from './plugin.js'

export { type OverrideTwin, overrideTwinOf } from '@restwell/core/internal'
export { type RerouteRecord, reroutedFrom } from '@restwell/reroute'
export {
  DEFAULT_OVERRIDE_HEADER,
  DEFAULT_OVERRIDE_METHODS,
  DEFAULT_OVERRIDE_QUERY,
  HEAD_TARGET_PROBLEM,
  type MethodOverrideOptions,
  MethodOverrideOptionsSchema,
  OVERRIDABLE_METHODS,
} from './options.js'
export { type OverrideSource, overrideMethod } from './override.js'
export { METHOD_OVERRIDE_ORDER, OVERRIDE_CONSTRAINT } from './carriers.js'
export { methodOverride } from './convention.js'
export { restwellMethodOverride }
export default restwellMethodOverride
