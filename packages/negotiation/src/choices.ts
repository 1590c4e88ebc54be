/** The 300 Multiple Choices answer: the route's representations, each with its `?format=` URL. */
import { pathOf, publicUrl } from '@restwell/core/internal'
import type { HttpError } from '@restwell/errors'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { MediaOffer } from './accept.js'
import { MEDIA_TYPES } from './options.js'
import { preferredOffer } from './preferred.js'
import { CONTENT_TYPES } from './serialize.js'
import type { NegotiationSettings, RouteSettings } from './settings.js'

/** A URL with one query parameter set, for the 300 choice list. */
function withQuery(url: string, name: string, value: string): string {
  const q = url.indexOf('?')
  const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1))
  params.set(name, value)
  return `${pathOf(url)}?${params.toString()}`
}

/** The choices of the route, and the URL of the `preferred` one (the 300's `Location`). */
function choicesBody(
  request: FastifyRequest,
  plugin: NegotiationSettings,
  settings: RouteSettings,
  preferred: MediaOffer,
): { choices: { type: string; href: string }[]; location: string | undefined } {
  const { formatParam } = plugin.options
  const choices: { type: string; href: string }[] = []
  let location: string | undefined
  const url = publicUrl(request)
  for (const offer of settings.offers) {
    const name = plugin.names.get(offer.mediaType)
    if (name === undefined || formatParam === false) continue
    const href = withQuery(url, formatParam, name)
    choices.push({ type: offer.mediaType, href })
    if (offer === preferred) location = href
  }
  return { choices, location }
}

/** The 300 with the route's representations: `true` once sent, or the 400 of a bad `Accept`. */
export function sendChoices(
  request: FastifyRequest,
  reply: FastifyReply,
  plugin: NegotiationSettings,
  settings: RouteSettings,
): true | HttpError {
  const offer = preferredOffer(request, plugin, settings)
  if (offer instanceof Error) return offer
  const { choices, location } = choicesBody(request, plugin, settings, offer ?? settings.offers[0]!)
  if (location !== undefined) reply.header('location', location)
  reply.code(300).type(CONTENT_TYPES[MEDIA_TYPES.json]).send(JSON.stringify({ choices }))
  return true
}
