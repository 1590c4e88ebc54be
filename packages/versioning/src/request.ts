/**
 * The request step of versioning, on every request before any other work: what the carriers
 * refuse (400, 406, a 404 for an unknown or refused `/v<N>` prefix), then a moved path's redirect.
 */
import type { RequestStep } from '@restwell/core'
import { type HttpError, httpErrors } from '@restwell/errors'
import { splitUrl } from '@restwell/reroute'
import type { FastifyRequest } from 'fastify'
import { type Carried, carriedBy, PLAIN_PREFIXED, PLAIN_UNPREFIXED } from './carriers.js'
import { movedLocation } from './moved.js'
import { redirectMoved } from './redirect.js'
import { unknownVersion } from './refusals.js'
import type { VersioningState } from './state.js'

/** The request step: the carriers' refusal, and with `moved` paths their redirect. */
export function requestStep(state: VersioningState): RequestStep {
  if (state.options.moved.length === 0) {
    return function restwellVersioning(request) {
      const carried = carriedBy(state, request.raw)
      if (carried === PLAIN_UNPREFIXED || carried === PLAIN_PREFIXED) return undefined
      return refusal(state, carried, request)
    }
  }
  return function restwellVersioning(request, reply) {
    const carried = carriedBy(state, request.raw)
    if (carried !== PLAIN_UNPREFIXED && carried !== PLAIN_PREFIXED) {
      const refused = refusal(state, carried, request)
      if (refused !== undefined) return refused
    }
    return request.is404 && redirectMoved(state, carried, request, reply)
  }
}

/**
 * The 4xx what `carried` says makes, if any: a refused prefix, an unknown one where no route
 * matched (unless its path has moved: the redirect answers), or the carriers' own refusal.
 */
function refusal(
  state: VersioningState,
  carried: Carried,
  request: FastifyRequest,
): HttpError | undefined {
  if (carried.prefixRefused) {
    return httpErrors.notFound(`Route ${request.method} ${splitUrl(request.url).path} not found`)
  }
  if (carried.unknownPrefix !== undefined && request.is404) {
    if (movedLocation(state.options.moved, splitUrl(request.url).path) !== undefined) {
      return undefined
    }
    // `path/0`: the path's first segment, the `/v<N>` prefix (the errors README's `path` part).
    return unknownVersion(
      state.versions,
      'notFound',
      `Version ${carried.unknownPrefix} is not supported`,
      'path/0',
    )
  }
  return carried.error
}
