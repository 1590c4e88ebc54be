/** Options of `@restwell/patch`, and of `config.patch` on a route. */
import { Type } from '@sinclair/typebox'
import type { Options as AjvOptions } from 'ajv'
import type { PatchFormat } from './content-type.js'
import type { DocumentValidator } from './resource.js'

const Format = Type.Union([Type.Literal('json-patch'), Type.Literal('merge-patch')])
const Formats = Type.Array(Format, { minItems: 1, uniqueItems: true })
const Status = Type.Union([Type.Literal(200), Type.Literal(204)])
const ReadOnly = Type.Array(Type.String({ minLength: 1 }))

export const PatchOptionsSchema = Type.Object(
  {
    everyPatchRoute: Type.Optional(Type.Boolean()),
    formats: Type.Optional(Formats),
    status: Type.Optional(Status),
    readOnly: Type.Optional(ReadOnly),
    maxOperations: Type.Optional(Type.Integer({ minimum: 1 })),
    advertise: Type.Optional(Type.Boolean()),
    ajv: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
)

/**
 * Options of `@restwell/patch`; every one optional.
 *
 * @param everyPatchRoute Turn the plugin on for every PATCH route (`config.patch: false` opts out); when false only routes with `config.patch` set use it. [true]
 * @param formats Patch formats accepted. [`['json-patch', 'merge-patch']`]
 * @param status Success status of a patch route: 200 with the new representation, or 204. [200]
 * @param readOnly Fields no patch may change, on every route: member names (`id`) or JSON Pointers (`/meta/createdAt`). [`[]`]
 * @param maxOperations Most operations in one JSON Patch document; more is 413. [1000]
 * @param advertise Add `Accept-Patch` to OPTIONS and 405 responses on patch routes' paths. [true]
 * @param ajv Ajv options for the resource-schema check (`formats`, `keywords`, ...). [`{}`]
 */
export interface PatchOptions {
  everyPatchRoute?: boolean
  formats?: PatchFormat[]
  status?: 200 | 204
  readOnly?: string[]
  maxOperations?: number
  advertise?: boolean
  ajv?: AjvOptions
}

/** `config.patch` on a route: `false` off, `true` on with the plugin's settings, or settings. */
export const PatchRouteConfigSchema = Type.Object(
  {
    formats: Type.Optional(Formats),
    status: Type.Optional(Status),
    readOnly: Type.Optional(ReadOnly),
    schema: Type.Optional(Type.Union([Type.Literal(false), Type.Object({})])),
    validate: Type.Optional(Type.Unsafe<DocumentValidator>(Type.Function([], Type.Unknown()))),
  },
  { additionalProperties: false },
)

/**
 * Per-route settings under `config.patch`.
 *
 * @param formats Patch formats this route accepts. [the plugin's]
 * @param status 200 or 204 on success. [the plugin's]
 * @param readOnly More read-only fields, added to the plugin's and the schema's `readOnly: true`. [`[]`]
 * @param schema The resource's schema the patched document must match: JSON Schema (or TypeBox), read by the plugin's Ajv; another kind (Zod) is compiled by the route's validator compiler; `false` for no check. [the route's `response[200]` schema]
 * @param validate A validator of the patched document, used instead of `schema`: a Fastify validator (`true`/`false` with `errors`, or `{ error }`), an Ajv `ValidateFunction`, a Zod `safeParse`. [none]
 */
export interface PatchRouteConfig {
  formats?: PatchFormat[]
  status?: 200 | 204
  readOnly?: string[]
  schema?: object | false
  validate?: DocumentValidator
}

export interface ResolvedPatchOptions {
  everyPatchRoute: boolean
  formats: readonly PatchFormat[]
  status: 200 | 204
  readOnly: readonly string[]
  maxOperations: number
  advertise: boolean
  ajv: AjvOptions
}

/** Default most operations in one JSON Patch document. */
export const DEFAULT_MAX_OPERATIONS = 1000

/** Fills in the defaults. */
export function resolvePatchOptions(options: PatchOptions): ResolvedPatchOptions {
  return {
    everyPatchRoute: options.everyPatchRoute ?? true,
    formats: options.formats ?? ['json-patch', 'merge-patch'],
    status: options.status ?? 200,
    readOnly: options.readOnly ?? [],
    maxOperations: options.maxOperations ?? DEFAULT_MAX_OPERATIONS,
    advertise: options.advertise ?? true,
    ajv: options.ajv ?? {},
  }
}
