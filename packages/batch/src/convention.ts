/** The batch convention: one POST, many operations served by the app itself, 207 Multi-Status. */
import { defineConvention } from '@restwell/core'
import { type BatchOptions, type ResolvedBatchOptions, resolveBatchOptions } from './options.js'
import { addBatchRoute } from './route.js'

/** The plugin's name, as its messages begin. */
const PLUGIN = '@restwell/batch'

/**
 * Batch requests: `POST /batch` with many operations, each injected into the app (so it passes
 * every hook, the rate limit included), answered 207 with a status per operation. One route,
 * no step of a request: it may come after the umbrella.
 */
export const batch = defineConvention({
  name: 'batch',
  plugin: PLUGIN,
  phases: [],
  options: (raw: BatchOptions) => resolveBatchOptions(raw),
  setup: (fastify, options: ResolvedBatchOptions) => {
    addBatchRoute(fastify, options)
    return options
  },
})
