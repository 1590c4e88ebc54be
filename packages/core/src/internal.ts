/**
 * @restwell/core/internal: the kernel behind restwell's own packages (the pipeline's plans and
 * hooks, the route ledger, twins, route lookup, the header parsers, the contracts between
 * plugins, registration). For restwell's packages only: it may change in any release. A plugin
 * of your own takes what it needs from `@restwell/core`.
 */
export { bodilessHead, notModifiedHeaders, REMOVED_ON_304 } from './answers.js'
export {
  addRouteHook,
  forgetNotFoundPreHandler,
  installPipeline,
  isBodyStep,
  notFoundPreHandler,
  type Pipeline,
  parsingHook,
  pipelineOf,
  requestHook,
  sendHook,
  serializeHook,
  runWhenPlanned,
  whenPlanned,
} from './plan.js'
export {
  type ConstraintStore,
  keyedConstraintStore,
  OVERRIDE_TWIN,
  type OverrideTwin,
  overrideTwinOf,
  type RouteShape,
  servedMethods,
  twinSourceOf,
  VERSION_PAIR,
  type VersionPair,
  versionPairOf,
} from './twins.js'
export {
  lookupConstraints,
  type RouteLookup,
  routeLookup,
  shareLookupConstraint,
} from './route-lookup.js'
export { developerWarning, WARNING_TYPE } from './warning.js'
export { TICK_OBJECT } from './tick-shape.js'
export { MAX_VARY_FIELDS, VARY_MEMO_SIZE } from './vary.js'
export {
  BODYLESS_METHODS,
  CONTENT_METHODS,
  READ_METHODS,
  REFUSED_METHODS,
  SAFE_METHODS,
  STANDARD_METHODS,
  UNSAFE_METHODS,
  VALIDATED_METHODS,
} from './methods.js'
export { asList, fieldText, isOws, isTchar, isToken, pathOf, publicUrl } from './http.js'
export {
  ACCEPT_CACHE_SIZE,
  type ListElement,
  MAX_LIST_ELEMENTS,
  MAX_PARAMS,
  type ParsedList,
  parseList,
  parseQ,
  remembered,
} from './header-list.js'
export { safePath } from './link.js'
export { isModuleNotFound } from './peer.js'
export {
  adoptionBatch,
  checkEveryRoute,
  EarlierRoutesError,
  initialOptions,
  onEveryRoute,
  routesBefore,
  routesOutOfReach,
  type ScopeDefaults,
  setScopeRouteDefaults,
  snapshotRoutes,
} from './routes.js'
export { isPlainSchema, routeConfigReader, type SchemaAccess, schemaAccess } from './routes.js'
export { type JsonBodyCheck, JsonTypes, StrictAjv, type StrictAjvMutations } from './json-schema.js'
export {
  API_VERSIONS,
  asksForAuthentication,
  AUTHENTICATES,
  BODY_BYTES,
  BODY_DIGESTS,
  type BodyDigests,
  bodyDigestsOf,
  COMPRESSES,
  compressesAnswers,
  declareCompression,
  declareState,
  FULL_REPRESENTATION,
  fullRepresentationOf,
  IDENTITY_DIGEST,
  identityDigest,
  ITEMS_DIGEST_PREFIX,
  isNotModified,
  MEDIA_TYPE,
  markNotModified,
  PAGE,
  refuseUnguardedRoutes,
  REPRESENTATION,
} from './contracts.js'
export {
  type RegisterOnceOptions,
  refuseBeside,
  registeredTwice,
  registerOnce,
} from './registration.js'
export {
  type AlonePlacement,
  type AnyConvention,
  isConvention,
  PHASES,
  type StepOf,
  type WithPhase,
} from './convention.js'
export {
  type InstalledConvention,
  installConvention,
  installedConventions,
  mergeContributions,
  notFoundSendHook,
  type OptionsInput,
  pipelineRouteSteps,
  routeDescriptionOf,
  routeResponseHeadersOf,
} from './run.js'
export type { StepKey } from './plan.js'
export { QUERY_KEY_PREFIX, type QueryRequest, queryContentKey } from './query.js'
