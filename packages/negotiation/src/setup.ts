/**
 * Negotiation's setup, once per registration: its request decorators, its body parsers
 * (UTF-8 JSON and forms, multipart when asked), and its error renderer for `@restwell/errors`.
 */
import { routeName } from '@restwell/core'
import { declareState, JsonTypes, MEDIA_TYPE, REPRESENTATION } from '@restwell/core/internal'
import { OptionsError } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'
import {
  addParserUnlessPresent,
  declaredOnly,
  FORM_PATTERN,
  parsesForms,
  utf8FormParser,
  utf8JsonParser,
} from './bodies.js'
import { queryRoutes } from './accept-query.js'
import { createErrorRenderer } from './error-body.js'
import { formRoute, jsonTypesOf } from './negotiate.js'
import {
  FORM_URLENCODED,
  MEDIA_TYPES,
  MULTIPART,
  type ResolvedNegotiationOptions,
} from './options.js'
import { importMultipart } from './peer.js'
import { formatNames, type NegotiationSettings, PLUGIN } from './settings.js'

/**
 * Adds the body parsers: request bodies are UTF-8 (RFC 8259 §8.1), checked before they are
 * decoded. Parsers the app registered itself are kept, and so is an app's choice to parse no
 * JSON at all. Returns the check of JSON types when this plugin's JSON parser reads JSON.
 */
export async function setupParsers(
  fastify: FastifyInstance,
  options: ResolvedNegotiationOptions,
): Promise<JsonTypes | undefined> {
  const parsesJson =
    fastify.hasContentTypeParser(MEDIA_TYPES.json) &&
    addParserUnlessPresent(fastify, MEDIA_TYPES.json, {
      bodyLimit: undefined,
      parser: utf8JsonParser(fastify, jsonTypesOf),
    })
  if (options.formbody !== false && !parsesForms(fastify)) {
    const parser = declaredOnly(utf8FormParser(options.formbody), FORM_URLENCODED, formRoute)
    addParserUnlessPresent(fastify, FORM_PATTERN, parser)
  }
  if (options.multipart !== false && !fastify.hasContentTypeParser(MULTIPART)) {
    const { default: multipart } = await importMultipart()
    await fastify.register(multipart, {
      limits: options.multipart.limits,
      throwFileSizeLimit: true,
    })
  }
  if (!parsesJson) return undefined
  return new JsonTypes(
    fastify,
    (route, error) =>
      new OptionsError(
        `${PLUGIN} route ${routeName(route)}`,
        'schema.body',
        `cannot be compiled for the check of JSON types (${error.message}): fix the schema, or set config.negotiation.strictJson to false`,
      ),
  )
}

/**
 * Adds negotiation's renderer to `@restwell/errors` once the app is ready, where it is
 * registered: `?format=` wins over `Accept` for errors too, those of no route (404, 405) and
 * those raised before negotiation (429) included.
 */
export function registerErrorRenderer(
  fastify: FastifyInstance,
  options: ResolvedNegotiationOptions,
): void {
  fastify.addHook('onReady', async function registerErrorRenderer() {
    if (!fastify.hasDecorator('restwellErrors')) return
    const api = fastify.restwellErrors
    const { formatParam, formats } = options
    api.addRenderer(
      createErrorRenderer(api.format, options.versionedJson, { formatParam, formats }),
    )
  })
}

/** Decorates requests, adds the parsers and the error renderer; returns what the steps read. */
export async function setupNegotiation(
  fastify: FastifyInstance,
  options: ResolvedNegotiationOptions,
): Promise<NegotiationSettings> {
  fastify.decorateRequest('negotiated', null)
  fastify.decorateRequest('language', undefined)
  declareState(fastify, 'request', MEDIA_TYPE, REPRESENTATION)
  const jsonTypes = await setupParsers(fastify, options)
  if (options.errors) registerErrorRenderer(fastify, options)
  return {
    options,
    names: formatNames(options.formats),
    jsonTypes,
    contentTypes: new Map(),
    queries: queryRoutes(fastify),
  }
}
