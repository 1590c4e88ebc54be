/** The representation `Accept` prefers among a route's offers, remembered per `Accept` value. */
import { apiVersionsOf } from '@restwell/core'
import type { HttpError } from '@restwell/errors'
import type { FastifyRequest } from 'fastify'
import { type MediaOffer, negotiateMediaType, parseAccept, remembered } from './accept.js'
import { malformedHeader } from './refusals.js'
import {
  type AcceptOutcome,
  MALFORMED,
  NONE,
  type NegotiationSettings,
  type RouteSettings,
} from './settings.js'

function acceptOutcome(
  header: string,
  offers: readonly MediaOffer[],
  versionedJson: boolean,
  versions: ReadonlySet<number> | undefined,
): AcceptOutcome {
  const ranges = parseAccept(header, { versionedJson, versions })
  if (ranges === undefined) return MALFORMED
  if (ranges.length === 0) return offers[0]!
  return negotiateMediaType(ranges, offers) ?? NONE
}

/**
 * The offer `Accept` prefers, undefined when nothing it lists is produced, or the 400 of a
 * malformed `Accept`.
 */
export function preferredOffer(
  request: FastifyRequest,
  plugin: NegotiationSettings,
  settings: RouteSettings,
): MediaOffer | HttpError | undefined {
  const header = request.headers.accept
  if (header === undefined) return settings.offers[0]
  const { versionedJson } = plugin.options
  // Which versioned JSON ranges read as JSON depends on the versions this request may be
  // answered in (set by `@restwell/versioning`), so verdicts are remembered per such set.
  const versions = versionedJson ? apiVersionsOf(request) : undefined
  let memo = settings.acceptCache
  if (versions !== undefined) {
    let cached = settings.versionedCaches.get(versions)
    if (cached === undefined) {
      cached = new Map()
      settings.versionedCaches.set(versions, cached)
    }
    memo = cached
  }
  const outcome = remembered(memo, header, (value) =>
    acceptOutcome(value, settings.offers, versionedJson, versions),
  )
  if (outcome === MALFORMED) return malformedHeader('Accept')
  return outcome === NONE ? undefined : outcome
}
