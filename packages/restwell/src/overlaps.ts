/**
 * Official plugins that do a job restwell does. Beside restwell's own, either would answer the
 * same requests: two sets of CORS headers, a body compressed twice, two ETags. Registration
 * fails, naming the plugin, the option and the fix; with the option off, the two compose.
 */
import { OptionsError } from '@restwell/errors'
import { RegistrationError } from '@restwell/core'
import { pipelineOf, refuseBeside, registeredTwice } from '@restwell/core/internal'
import type { FastifyInstance } from 'fastify'
import type { RestwellOptions } from './options.js'

interface Overlap {
  /** The plugin's name, as `fastify.hasPlugin` knows it. */
  readonly plugin: string
  /** restwell's option that does the same job. */
  readonly option: keyof RestwellOptions & string
  /** What both would do, as the message says it. */
  readonly job: string
}

const OVERLAPS: readonly Overlap[] = [
  { plugin: '@fastify/cors', option: 'cors', job: 'answer CORS requests and preflights' },
  {
    plugin: '@fastify/compress',
    option: 'compress',
    job: 'compress answers and decode request bodies',
  },
  { plugin: '@fastify/etag', option: 'conditional', job: 'send ETags and answer 304' },
  {
    plugin: '@fastify/rate-limit',
    option: 'rateLimit',
    job: 'count requests and answer 429',
  },
  { plugin: '@fastify/under-pressure', option: 'underPressure', job: 'answer 503 under load' },
]

/** restwell's own plugins, by the umbrella option that registers each. */
const OWN: ReadonlyArray<readonly [keyof RestwellOptions & string, string]> = [
  ['errors', '@restwell/errors'],
  ['cors', '@restwell/cors'],
  ['methodOverride', '@restwell/method-override'],
  ['versioning', '@restwell/versioning'],
  ['underPressure', '@restwell/overload'],
  ['rateLimit', '@restwell/rate-limit'],
  ['auth', '@restwell/auth'],
  ['methods', '@restwell/methods'],
  ['negotiation', '@restwell/negotiation'],
  ['conditional', '@restwell/conditional'],
  ['cacheControl', '@restwell/cache-control'],
  ['patch', '@restwell/patch'],
  ['pagination', '@restwell/pagination'],
  ['softDelete', '@restwell/soft-delete'],
  ['naming', '@restwell/naming'],
  ['jobs', '@restwell/jobs'],
  ['batch', '@restwell/batch'],
]

/** Options that are off until given; the others are on until `false`. */
const OFF_UNTIL_GIVEN = new Set(['auth', 'jobs', 'batch'])

function isOn(options: RestwellOptions, option: keyof RestwellOptions): boolean {
  const value = options[option]
  return value !== false && (value !== undefined || !OFF_UNTIL_GIVEN.has(option))
}

function overlapError(overlap: Overlap, where: 'before' | 'after'): OptionsError {
  return new OptionsError(
    'restwell',
    overlap.option,
    `is on, and ${overlap.plugin} is registered ${where} restwell: both would ${overlap.job}. Remove ${overlap.plugin} (restwell's \`${overlap.option}\` settings are in its README), or pass \`${overlap.option}: false\` to restwell to keep ${overlap.plugin}.`,
  )
}

/**
 * Checks, when restwell registers, that it is not registered already on this instance or a
 * parent, that none of its own plugins is there beside the option that registers it, and that
 * no plugin of `OVERLAPS` is there beside an option that is on; and, once the app is ready, that
 * none was registered after it (its own plugins refuse a second registration themselves).
 */
export function checkOverlaps(fastify: FastifyInstance, options: RestwellOptions): void {
  if (pipelineOf(fastify) !== undefined) {
    throw new RegistrationError(
      'restwell: registered twice on this instance (or on it and a parent): register it once, at the root, with all its options',
    )
  }
  // One of restwell's own, registered before it: the umbrella's registration would be the second.
  for (const [option, plugin] of OWN) {
    if (isOn(options, option) && fastify.hasPlugin(plugin)) throw registeredTwice(plugin, option)
  }
  for (const overlap of OVERLAPS) {
    if (!isOn(options, overlap.option)) continue
    refuseBeside(fastify, overlap.plugin, (where) => overlapError(overlap, where))
  }
}
