/** Patch's setup, once per registration: its decorators, its body parsers, its route lookup. */
import type { RouteEntry } from '@restwell/core'
import { JsonTypes, routeLookup, StrictAjv, servedMethods } from '@restwell/core/internal'
import { OptionsError } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'
import type { RestwellPatchApi } from './augment.js'
import type { ResolvedPatchOptions } from './options.js'
import { addPatchParsers } from './parsers.js'
import { applyPatch, parsedPatch } from './request.js'
import { NAME } from './schema.js'
import { type PatchSettings, readOnlyOf } from './settings.js'
import { acceptPatchFor, formatsFor } from './steps.js'

/** A PATCH route, kept in the lookup (its formats are known once the route is set up). */
function patchMethod(route: RouteEntry): readonly RouteEntry[] | undefined {
  return servedMethods(route).includes('PATCH') ? [route] : undefined
}

/**
 * Decorates the instance (`restwellPatch`) and requests (`patch`, `applyPatch`), adds the
 * patch media types' parsers, and keeps the PATCH routes for `Accept-Patch` on OPTIONS and 405.
 */
export function setupPatch(fastify: FastifyInstance, options: ResolvedPatchOptions): PatchSettings {
  const settings: PatchSettings = {
    options,
    readOnly: readOnlyOf(options.readOnly, 'readOnly'),
    validator: new StrictAjv(options.ajv),
    jsonTypes: new JsonTypes(
      fastify,
      (route, error) =>
        new OptionsError(
          `${NAME} (PATCH ${route.url})`,
          'schema.body',
          `cannot be compiled for the check of JSON types (${error.message}): fix the schema, or give the route a validatorCompiler of its own`,
        ),
    ),
    masks: new WeakMap(),
    routes: routeLookup(fastify, patchMethod, (earlier, later) => [...earlier, ...later]),
  }
  const api: RestwellPatchApi = {
    formatsFor: (url) => formatsFor(settings, url),
    acceptPatch: (url) => acceptPatchFor(settings, url),
  }
  fastify.decorate('restwellPatch', api)
  fastify.decorateRequest('patch', { getter: parsedPatch })
  fastify.decorateRequest('applyPatch', applyPatch)
  addPatchParsers(fastify)
  return settings
}
