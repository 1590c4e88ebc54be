/** @restwell/naming: route paths checked against the naming rules of spec part 2. */
import './augment.js'
import { restwellNaming } from './plugin.js'

export { naming } from './convention.js'
export { NamingError } from './naming-error.js'
export { type NamingOptions, NamingOptionsSchema, resolveNamingOptions } from './options.js'
export {
  checkRouteName,
  isExcluded,
  type NamingRule,
  type NamingViolation,
  resourceSegments,
} from './rules.js'
export { restwellNaming }
export default restwellNaming
