/** @restwell/prefer: the Prefer header (RFC 7240): return, respond-async + wait, handling, Preference-Applied. */
import './augment.js'
import { restwellPrefer } from './plugin.js'

export type { JobsView, JobView } from './async.js'
export { prefer } from './convention.js'
export {
  type AsyncForm,
  DEFAULT_MAX_WAIT,
  type PreferOptions,
  PreferOptionsSchema,
  type PreferRouteConfig,
  PreferRouteConfigSchema,
} from './options.js'
export {
  formatApplied,
  MAX_PARAMETERS,
  MAX_PREFERENCES,
  type Preference,
  type Preferences,
  parsePrefer,
  waitSeconds,
} from './prefer.js'
export { RequestPreferences } from './state.js'
export { restwellPrefer }
export default restwellPrefer
