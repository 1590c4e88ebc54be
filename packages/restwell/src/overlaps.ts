/**
 * Official plugins that do a job restwell does. Beside restwell's own, either would answer the
 * same requests: two sets of CORS headers, a body compressed twice, two ETags. Registration
 * fails, naming the plugin, the option and the fix; with the option off, the two compose.
 */
import { OptionsError } from '@restwell/errors'
import { pipelineOf } from '@restwell/core'
import type { FastifyInstance } from 'fastify'
import type { RestwellOptions } from './options.js'

interface Overlap {
  /** The plugin's name, as `fastify.hasPlugin` knows it. */
  readonly plugin: string
  /** restwell's option that does the same job. */
  readonly option: keyof RestwellOptions & string
  /** What both would do, as the message says it. */
  readonly job: string
  /** restwell registers it itself (at the root), so a later one cannot be told apart by name. */
  readonly registeredByRestwell?: true
}

export const OVERLAPS: readonly Overlap[] = [
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
    registeredByRestwell: true,
  },
  { plugin: '@fastify/under-pressure', option: 'underPressure', job: 'answer 503 under load' },
]

function overlapError(overlap: Overlap, where: 'before' | 'after'): OptionsError {
  return new OptionsError(
    'restwell',
    overlap.option,
    `is on, and ${overlap.plugin} is registered ${where} restwell: both would ${overlap.job}. Remove ${overlap.plugin} (restwell's \`${overlap.option}\` settings are in its README), or pass \`${overlap.option}: false\` to restwell to keep ${overlap.plugin}.`,
  )
}

/**
 * Checks, when restwell registers, that it is not registered already on this instance or a
 * parent, and that no plugin of `OVERLAPS` is there beside an option that is on; and, once the
 * app is ready, that none was registered after it.
 */
export function checkOverlaps(fastify: FastifyInstance, options: RestwellOptions): void {
  if (pipelineOf(fastify) !== undefined) {
    throw new Error(
      'restwell: registered twice on this instance (or on it and a parent): register it once, at the root, with all its options',
    )
  }
  const on = OVERLAPS.filter((overlap) => options[overlap.option] !== false)
  for (const overlap of on) {
    if (fastify.hasPlugin(overlap.plugin)) throw overlapError(overlap, 'before')
  }
  const later = on.filter((overlap) => overlap.registeredByRestwell !== true)
  fastify.addHook('onReady', async function restwellOverlaps() {
    for (const overlap of later) {
      if (fastify.hasPlugin(overlap.plugin)) throw overlapError(overlap, 'after')
    }
  })
}
