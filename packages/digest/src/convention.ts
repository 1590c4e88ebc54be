/** The digest convention: integrity fields on answers, and request digests checked (RFC 9530). */
import { defineConvention, type RouteContext, type RouteDescription } from '@restwell/core'
import { addRouteHook, whenPlanned } from '@restwell/core/internal'
import { validateOptions } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'
import { answerDigests } from './answer.js'
import {
  type DigestOptions,
  DigestOptionsSchema,
  type DigestRouteConfig,
  DigestRouteConfigSchema,
  type DigestSettings,
  resolveDigestOptions,
  routeSettings,
} from './options.js'
import { checkRequestDigests, hashRequestBody } from './request.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/digest'

/** Methods whose request body Fastify never reads. */
const BODYLESS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE'])

/** The integrity fields, request and response, each a header CORS must allow or expose. */
const FIELDS = ['content-digest', 'repr-digest', 'want-content-digest', 'want-repr-digest']

function setupDigest(_fastify: FastifyInstance, options: DigestSettings): DigestSettings {
  return options
}

/** Whether the route reads a request body, so has request digests to check. */
function readsBodies(methods: readonly string[]): boolean {
  return methods.some((method) => !BODYLESS.has(method))
}

function describeDigest(
  { methods, config }: RouteContext<DigestRouteConfig>,
  options: DigestSettings,
): RouteDescription {
  const settings = routeSettings(options, config)
  const responseHeaders: [string, string][] = []
  if (settings.repr)
    responseHeaders.push(['Repr-Digest', 'Digest of the selected representation (RFC 9530 §3)'])
  if (settings.content)
    responseHeaders.push(['Content-Digest', 'Digest of the content sent (RFC 9530 §2)'])
  const checks = settings.verify && readsBodies(methods)
  return {
    requestHeaders: [
      ['Want-Repr-Digest', 'Asks for Repr-Digest, with algorithm preferences (RFC 9530 §4)'],
      ['Want-Content-Digest', 'Asks for Content-Digest, with algorithm preferences (RFC 9530 §4)'],
      ...(checks
        ? ([
            ['Content-Digest', 'Digest of the request content, checked before the handler'],
            ['Repr-Digest', 'Digest of the request representation, checked before the handler'],
          ] as [string, string][])
        : []),
    ],
    responseHeaders,
    ...(checks
      ? {
          responses: [
            [
              400,
              'A request digest that does not match the content, is invalid, or has no supported algorithm',
            ],
          ] as [number, string][],
        }
      : {}),
  }
}

/**
 * `Repr-Digest` and `Content-Digest` (sha-256, sha-512) on the answers of every route, when the
 * client asks with `Want-Repr-Digest`/`Want-Content-Digest` or the route says so; a request's
 * `Content-Digest`/`Repr-Digest` checked before the handler (400 with the digest problem types).
 */
export const digest = defineConvention({
  name: 'digest',
  plugin: PLUGIN,
  phases: ['beforeHandler', 'send'],
  options: (raw: DigestOptions) =>
    resolveDigestOptions(validateOptions(PLUGIN, DigestOptionsSchema, raw)),
  routeConfig: (raw: unknown, where: string): DigestRouteConfig =>
    validateOptions(where, DigestRouteConfigSchema, raw),
  setup: setupDigest,
  route: ({ route, instance, methods, config }, options) => {
    const settings = routeSettings(options, config)
    if (!settings.verify || !readsBodies(methods)) {
      return { send: answerDigests(settings) }
    }
    // The content is hashed as read, before any decoder: a step sees no body stream, so the
    // route's first preParsing hook (once the pipeline has put its own) wraps it.
    whenPlanned(instance, route, () => {
      addRouteHook(route, 'preParsing', hashRequestBody(settings), 'first')
    })
    return { beforeHandler: checkRequestDigests, send: answerDigests(settings) }
  },
  contributes: () => ({ requestHeaders: FIELDS, responseHeaders: FIELDS }),
  describe: describeDigest,
  // Alone, the check comes before the route's own preHandler hooks (none of them sees a body
  // that does not match), and the fields before the route's own onSend hooks, Fastify's that
  // drops a HEAD body among them (the app's onSend hooks, a compressor's, run before any).
  alone: { beforeHandler: 'first', send: 'first' },
})
