/** @restwell/reroute: the method and URL a twin route was reached for, set in one shared hook. */
import { restwellReroute } from './plugin.js'

export { type RerouteOptions, RerouteOptionsSchema } from './plugin.js'
export {
  ANSWER_IN_ON_REQUEST,
  addRewriter,
  installReroute,
  REROUTE_STATE,
  REROUTED,
  type RerouteRecord,
  type RerouteTarget,
  type Rewriter,
  type RewriterEntry,
  reroutedFrom,
  rewriterNames,
} from './reroute.js'
export { joinUrl, MAX_QUERY_PARAMS, queryValues, splitUrl, withoutQueryParam } from './url.js'
export { restwellReroute }
export default restwellReroute
