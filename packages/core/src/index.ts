/** @restwell/core: per-route plans of convention steps, and the hooks that run them. */
export { bodilessHead, notModifiedHeaders, REMOVED_ON_304 } from './answers.js'
export {
  addRouteHook,
  type BodyStep,
  bodyStep,
  forgetNotFoundPreHandler,
  installPipeline,
  isBodyStep,
  notFoundPreHandler,
  type Pipeline,
  parsingHook,
  pipelineOf,
  type RequestBody,
  type RequestStep,
  type StepOutcome,
  requestHook,
  type SendStep,
  type SerializeStep,
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
  routeName,
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
export { appendVary, MAX_VARY_FIELDS, mergeVary, VARY_MEMO_SIZE } from './vary.js'
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
export { appendLink, safePath } from './link.js'
export { isModuleNotFound } from './peer.js'
export {
  adoptionBatch,
  checkEveryRoute,
  EarlierRoutesError,
  initialOptions,
  onEveryRoute,
  type RouteEntry,
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
  apiVersionsOf,
  authenticates,
  BODY_BYTES,
  BODY_DIGESTS,
  type BodyDigests,
  bodyBytesOf,
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
  mediaTypeOf,
  PAGE,
  type PageInfo,
  type PageLinks,
  pageOf,
  refuseUnguardedRoutes,
  REPRESENTATION,
  representationOf,
} from './contracts.js'
export {
  type RegisterOnceOptions,
  RegistrationError,
  refuseBeside,
  registeredTwice,
  registerOnce,
} from './registration.js'
export {
  type AlonePlacement,
  type AnyConvention,
  type AppPhase,
  type AppSteps,
  type Contributions,
  type Convention,
  type ConventionSpec,
  defineConvention,
  isConvention,
  type OptionNaming,
  optionNaming,
  PHASES,
  type Phase,
  type RouteContext,
  type RouteDescription,
  type RoutePhase,
  type RouteSteps,
  type SetupContext,
  type StepOf,
  type WithPhase,
} from './convention.js'
export {
  conventionPlugin,
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
