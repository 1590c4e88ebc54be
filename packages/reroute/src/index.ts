/** @restwell/reroute: the method and URL a twin route was reached for, set in one shared step. */
import { restwellReroute } from './plugin.js'

export { reroute } from './convention.js'
export { type RerouteOptions, RerouteOptionsSchema } from './options.js'
export { addRewriter, installReroute } from './reroute.js'
export {
  ANSWER_IN_ON_REQUEST,
  REROUTE_STATE,
  REROUTED,
  type RerouteRecord,
  type RerouteTarget,
  type Rewriter,
  type RewriterEntry,
  reroutedFrom,
  rewriterNames,
} from './rewriters.js'
export { joinUrl, MAX_QUERY_PARAMS, queryValues, splitUrl, withoutQueryParam } from './url.js'
export { restwellReroute }
export default restwellReroute
