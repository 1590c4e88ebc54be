/** @restwell/core: per-route plans of convention steps, and the hooks that run them. */
export { bodilessHead, notModifiedHeaders, REMOVED_ON_304 } from './answers.js'
export {
  addRouteHook,
  contributeSend,
  installPipeline,
  type Pipeline,
  pipelineOf,
  type RouteEntry,
  type SendStep,
  sendHook,
  sendStepsOf,
  useNotFoundSendStep,
  useSendStep,
} from './plan.js'
export { type RouteLookup, routeLookup } from './route-lookup.js'
