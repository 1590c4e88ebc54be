/** The errors convention: every error in one body form, with a request id, 5xx masked. */
import { defineConvention } from '@restwell/core'
import { type ErrorsOptions, ErrorsOptionsSchema, resolveErrorsOptions } from './options.js'
import { PLUGIN } from './settings.js'
import { setupErrors } from './setup.js'
import { requestStep } from './steps.js'
import { validateOptions } from './validate-options.js'

/**
 * One error handler and one not-found handler answering every error in the configured form
 * (spec 7), the request id on every answer, and the requests refused before anything runs: a
 * 503 while closing (spec 8), a 417 for an unmet `Expect` (RFC 9110 §10.1.1), a 400 for a bad
 * `Host` (RFC 9112 §3.2).
 */
export const errors = defineConvention({
  name: 'errors',
  plugin: PLUGIN,
  phases: ['request'],
  options: (raw: ErrorsOptions) =>
    resolveErrorsOptions(validateOptions(PLUGIN, ErrorsOptionsSchema, raw)),
  setup: setupErrors,
  app: (settings) => ({ request: requestStep(settings) }),
  contributes: ({ requestIdHeader }) => ({
    // An incoming id is honoured, and every answer carries one; the 503 while closing says when.
    requestHeaders: requestIdHeader === false ? [] : [requestIdHeader],
    responseHeaders: requestIdHeader === false ? ['retry-after'] : [requestIdHeader, 'retry-after'],
  }),
})
