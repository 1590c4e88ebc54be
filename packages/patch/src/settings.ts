/**
 * What the steps of patch read: the plugin's settings, made once at registration, and a patch
 * route's, decided once when the route is added (its formats, read-only fields, checks).
 */
import type { RouteEntry } from '@restwell/core'
import {
  type JsonBodyCheck,
  type JsonTypes,
  type RouteLookup,
  type StrictAjv,
  schemaAccess,
} from '@restwell/core/internal'
import { OptionsError } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'
import { acceptPatchValue, PATCH_MEDIA_TYPES, type PatchFormat } from './content-type.js'
import { show } from './errors.js'
import { isPlainObject } from './json.js'
import type { PatchRouteConfig, ResolvedPatchOptions } from './options.js'
import {
  type DocumentValidator,
  jsonFormValidator,
  parseReadOnly,
  readOnlyPointers,
  responseSchemaOf,
  standardValidator,
} from './resource.js'
import { NAME } from './schema.js'

/** What a patch route needs per request, built once when the route is added. */
export interface RouteSettings {
  readonly formats: readonly PatchFormat[]
  readonly acceptPatch: string
  readonly maxOperations: number
  readonly readOnly: readonly (readonly string[])[]
  /** The check of a patched document, made on first use; undefined: none. */
  readonly validator: (() => DocumentValidator) | undefined
  /** The check of the patch's JSON types against the route's own `schema.body`, per format. */
  readonly jsonTypes: Partial<Record<PatchFormat, JsonBodyCheck>>
}

/** What setup makes of the plugin's options: what every route's settings start from. */
export interface PatchSettings {
  readonly options: ResolvedPatchOptions
  /** The plugin's `readOnly`, parsed. */
  readonly readOnly: readonly (readonly string[])[]
  /** Checks patched documents: no conversion, no defaults, no removal (a 422, not a silent fix). */
  readonly validator: StrictAjv
  readonly jsonTypes: JsonTypes
  /** The formats of each patch route, as a `formatMask`. */
  readonly masks: WeakMap<RouteEntry, number>
  /** The PATCH routes by the URL a request names (`masks` has the formats of the patch ones). */
  readonly routes: RouteLookup<readonly RouteEntry[]>
}

/** `list` (member names, JSON Pointers) as paths; a bad one names the option `where`. */
export function readOnlyOf(list: readonly string[], where: string): string[][] {
  const parsed = parseReadOnly(list)
  if (typeof parsed === 'string') {
    throw new OptionsError(
      NAME,
      where,
      `has ${show(parsed)}, which is not a member name or JSON Pointer`,
    )
  }
  return parsed
}

/**
 * How a route's patched documents are checked: `config.patch.validate`; a JSON Schema with
 * the plugin's strict Ajv (compiled on first use); a schema of another kind with the route's
 * own validator compiler, compiled now, else with its Standard Schema `validate`. A response
 * schema is of another kind when the route's serializer compiler is not Fastify's: it is that
 * compiler's. A schema nothing here can read refuses the route: a patch is never applied
 * unchecked because its schema could not be read.
 */
function validatorOf(
  plugin: PatchSettings,
  instance: FastifyInstance,
  route: RouteEntry,
  config: PatchRouteConfig,
  schema: object | undefined,
): (() => DocumentValidator) | undefined {
  const given = config.validate
  if (given !== undefined) return () => given
  if (schema === undefined) return undefined
  const jsonSchema =
    isPlainObject(schema) &&
    standardValidator(schema) === undefined &&
    (config.schema !== undefined || schemaAccess(instance, route).response)
  if (jsonSchema) {
    let compiled: DocumentValidator | undefined
    return () => {
      compiled ??= jsonFormValidator(plugin.validator.compile(schema, instance.getSchemas()))
      return compiled
    }
  }
  const where = `${NAME} (PATCH ${route.url})`
  const fixes =
    'set config.patch.validate to a function that checks the patched document, or config.patch.schema to false to apply patches unchecked'
  const compiler = route.validatorCompiler ?? instance.validatorCompiler
  if (compiler === undefined) {
    const standard = standardValidator(schema)
    if (standard !== undefined) return () => standard
    throw new OptionsError(
      where,
      'config.patch.validate',
      `must be set: the resource schema is not JSON Schema and the route has no validator compiler to read it: ${fixes} (or give config.patch.schema a JSON Schema)`,
    )
  }
  let compiled: DocumentValidator
  try {
    compiled = compiler({ schema, method: 'PATCH', url: route.url, httpPart: 'body' })
  } catch (error) {
    throw new OptionsError(
      where,
      'config.patch.validate',
      `must be set: the route's validator compiler cannot compile its resource schema (${(error as Error).message}): ${fixes}`,
    )
  }
  return () => compiled
}

/** The patch route's settings: the plugin's, with its own `config.patch` over them. */
export function routeSettings(
  plugin: PatchSettings,
  instance: FastifyInstance,
  route: RouteEntry,
  config: PatchRouteConfig,
): RouteSettings {
  const formats = config.formats ?? plugin.options.formats
  const schema =
    config.schema === false ? undefined : (config.schema ?? responseSchemaOf(route.schema))
  return {
    formats,
    acceptPatch: acceptPatchValue(formats),
    maxOperations: plugin.options.maxOperations,
    readOnly: [
      ...plugin.readOnly,
      ...readOnlyOf(config.readOnly ?? [], 'config.patch.readOnly'),
      ...readOnlyPointers(schema),
    ],
    validator: validatorOf(plugin, instance, route, config, schema),
    jsonTypes: Object.fromEntries(
      formats.map((format) => [
        format,
        plugin.jsonTypes.forRoute(instance, route, PATCH_MEDIA_TYPES[format]),
      ]),
    ),
  }
}
