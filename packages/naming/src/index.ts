/** @restwell/naming: route paths checked against the naming rules of spec part 2. */
import './augment.js'
import { NamingError, restwellNaming } from './plugin.js'

export { type NamingOptions, NamingOptionsSchema, resolveNamingOptions } from './options.js'
export {
  checkRouteName,
  isExcluded,
  type NamingRule,
  type NamingViolation,
  resourceSegments,
} from './rules.js'
export { NamingError, restwellNaming }
export default restwellNaming
