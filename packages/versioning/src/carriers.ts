/**
 * What a request's carriers say: the `/v<N>` prefix, `?version=` and `Accept`, read once per
 * request (by routing, or by the request step) and kept on the raw request.
 */
import type { IncomingMessage } from 'node:http'
import type { HttpError } from '@restwell/errors'
import { queryValues } from '@restwell/reroute'
import { bestVersion, parseAcceptVersions } from './accept.js'
import { isSupported } from './registry.js'
import { conflicting, unacceptableVersions, unknownVersion } from './refusals.js'
import type { VersioningState } from './state.js'
import { parseVersionNumber, prefixVersion } from './version.js'

/** What a request's carriers say. */
export interface Carried {
  /** Unprefixed URL: the version `?version=` or `Accept` carries (a supported one). */
  readonly explicit: number | undefined
  /** The 4xx the carriers make: answered before the route runs. */
  readonly error: HttpError | undefined
  /** `carriers.prefix: false` and the URL has a `/v<N>` prefix: a 404. */
  readonly prefixRefused: boolean
  /** The URL's `/v<N>` prefix names an unsupported version: a 404 where no route matched. */
  readonly unknownPrefix: number | undefined
  /** `Accept` carried the version served (the versioned media type is answered). */
  readonly accept: boolean
  /** The URL has no version prefix. */
  readonly unprefixed: boolean
}

const PLAIN: Omit<Carried, 'unprefixed'> = {
  explicit: undefined,
  error: undefined,
  prefixRefused: false,
  unknownPrefix: undefined,
  accept: false,
}
/** A request that carries nothing, the common case: one object each, no allocation. */
export const PLAIN_UNPREFIXED: Carried = { ...PLAIN, unprefixed: true }
export const PLAIN_PREFIXED: Carried = { ...PLAIN, unprefixed: false }
const PREFIX_REFUSED: Carried = { ...PLAIN_PREFIXED, prefixRefused: true }

const CARRIED: unique symbol = Symbol.for('restwell.versioning.carried') as typeof CARRIED
/** A raw request with what its carriers say, once read. */
export type CarryingRequest = IncomingMessage & { [CARRIED]?: Carried }

/** Most query values of the version parameter looked at. */
const MAX_QUERY_VERSIONS = 8
const VND_MARKER = /vnd\.api\.v/i

/** The carriers of `raw`, read once: by routing (the version constraint), or by the request step. */
export function carriedBy(state: VersioningState, raw: CarryingRequest): Carried {
  const known = raw[CARRIED]
  if (known !== undefined) return known
  const carried = readCarriers(state, raw.url as string, raw.headers.accept)
  raw[CARRIED] = carried
  return carried
}

/** What `carriedBy` read of `raw`, if it did (a request no route step saw may have none). */
export function carriedOf(raw: IncomingMessage): Carried | undefined {
  return (raw as CarryingRequest)[CARRIED]
}

/** The values of the version parameter in `url`'s query, if its name is there unescaped. */
function queryCarried(url: string, parameter: string): string[] | undefined {
  const q = url.indexOf('?')
  if (q === -1 || !url.includes(parameter, q)) return undefined
  const found = queryValues(url.slice(q + 1), parameter)
  return found.length > 0 ? found : undefined
}

/** What the URL and headers of a request carry (see `carriedBy`). */
export function readCarriers(
  state: VersioningState,
  url: string,
  acceptHeader: string | undefined,
): Carried {
  const { options, versions } = state
  const prefix = prefixVersion(url)
  const accept = options.accept ? acceptHeader : undefined
  const acceptCarries = accept !== undefined && VND_MARKER.test(accept)
  const values = options.query === false ? undefined : queryCarried(url, options.query)
  // Fast path: nothing carried, and no prefix or a supported one.
  if (
    !acceptCarries &&
    values === undefined &&
    (prefix === undefined || (options.prefix && isSupported(versions, prefix.version)))
  ) {
    return prefix === undefined ? PLAIN_UNPREFIXED : PLAIN_PREFIXED
  }
  const unprefixed = prefix === undefined
  if (!unprefixed && !options.prefix) return PREFIX_REFUSED
  const fixed =
    prefix !== undefined && isSupported(versions, prefix.version) ? prefix.version : undefined
  const unknownPrefix = fixed === undefined ? prefix?.version : undefined
  const refuse = (error: HttpError): Carried => ({ ...PLAIN, unknownPrefix, error, unprefixed })
  const fromQuery = values === undefined ? undefined : queryVersion(state, values)
  if (fromQuery instanceof Error) return refuse(fromQuery)
  if (fixed !== undefined && fromQuery !== undefined && fixed !== fromQuery) {
    return refuse(conflicting(`/v${fixed}`, `?${options.query}=${fromQuery}`, queryField(state)))
  }
  const fromAccept = acceptCarries ? acceptVersion(state, accept, fixed, fromQuery) : undefined
  if (fromAccept instanceof Error) return refuse(fromAccept)
  if (!unprefixed) {
    // A prefixed URL is routed by its path; the carriers only agreed with it.
    return {
      ...PLAIN,
      unknownPrefix,
      accept: fixed !== undefined && fromAccept !== undefined,
      unprefixed,
    }
  }
  return {
    ...PLAIN,
    explicit: fromQuery ?? fromAccept,
    accept: fromAccept !== undefined,
    unprefixed,
  }
}

/** Where a refused `?version=` is named in an error's details. */
function queryField(state: VersioningState): string {
  return `querystring/${state.options.query}`
}

/** The version of `?version=`, undefined, or the 400 of a malformed, unknown or conflicting one. */
function queryVersion(
  state: VersioningState,
  values: readonly string[],
): number | HttpError | undefined {
  const parameter = state.options.query
  let version: number | undefined
  for (const value of values.slice(0, MAX_QUERY_VERSIONS)) {
    const parsed = parseVersionNumber(value)
    if (parsed === undefined || !isSupported(state.versions, parsed)) {
      return unknownVersion(
        state.versions,
        'badRequest',
        `Version ${JSON.stringify(value.slice(0, 16))} is not supported`,
        queryField(state),
      )
    }
    if (version !== undefined && parsed !== version) {
      return conflicting(`?${parameter}=${version}`, `?${parameter}=${parsed}`, queryField(state))
    }
    version = parsed
  }
  return version
}

/**
 * The version a versioned `Accept` picks: the one the prefix (`fixed`) or the query pinned, when
 * Accept takes it, else its best supported one; the 400 when it names only other supported
 * versions than the pinned one, the 406 when it names none that can be served and accepts
 * nothing else; undefined when it leaves the choice to the other carriers.
 */
function acceptVersion(
  state: VersioningState,
  accept: string,
  fixed: number | undefined,
  fromQuery: number | undefined,
): number | HttpError | undefined {
  const { versions } = state
  const parsed = parseAcceptVersions(accept)
  if (parsed.versions.length === 0) return undefined
  const pinned = fixed ?? fromQuery
  if (pinned === undefined) {
    const best = bestVersion(parsed.versions, (v) => isSupported(versions, v))
    if (best === undefined && !parsed.other) return unacceptableVersions(versions, parsed.versions)
    return best
  }
  if (parsed.versions.some((v) => v.version === pinned && v.q > 0)) return pinned
  if (parsed.versions.some((v) => isSupported(versions, v.version))) {
    const pinnedBy = fixed !== undefined ? `/v${fixed}` : `?${state.options.query}=${pinned}`
    return conflicting(pinnedBy, 'Accept', 'headers/accept')
  }
  return parsed.other ? undefined : unacceptableVersions(versions, parsed.versions)
}
