/**
 * What patch makes of a route's body schema when the route is added: the patch media types
 * described for OpenAPI where it has none, and the refusal of one that admits no JSON Patch.
 */
import { isPlainSchema, type SchemaAccess } from '@restwell/core/internal'
import { OptionsError } from '@restwell/errors'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { PATCH_MEDIA_TYPES, type PatchFormat } from './content-type.js'
import { isPlainObject } from './json.js'

/** The plugin's name, as its messages begin. */
export const NAME = '@restwell/patch'

/** What each format's body looks like, for OpenAPI (@fastify/swagger reads `schema.body`). */
const BODY_SCHEMAS: Readonly<Record<PatchFormat, object>> = {
  'json-patch': {
    description: 'JSON Patch (RFC 6902)',
    type: 'array',
    items: {
      type: 'object',
      required: ['op', 'path'],
      properties: {
        op: { enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
        path: { type: 'string', format: 'json-pointer', description: 'JSON Pointer (RFC 6901)' },
        from: {
          type: 'string',
          format: 'json-pointer',
          description: 'JSON Pointer (RFC 6901), for move and copy',
        },
        value: { description: 'for add, replace and test' },
      },
    },
  },
  'merge-patch': { description: 'JSON Merge Patch (RFC 7396)' },
}

/**
 * Gives a patch route without a body schema one per accepted media type, so its OpenAPI
 * description lists them. It accepts everything the patch parser accepted already. Only when
 * Fastify's own validator checks the route's body: a Zod or other type provider's compiler
 * would be handed this JSON Schema and fail on every request. A route schema that is not a
 * plain object is not copied.
 */
export function describeBody(
  route: RouteOptions,
  formats: readonly PatchFormat[],
  access: SchemaAccess,
): void {
  if (!access.validation || route.schema?.body !== undefined) return
  if (route.schema !== undefined && !isPlainSchema(route.schema)) return
  const content: Record<string, { schema: object }> = {}
  for (const format of formats)
    content[PATCH_MEDIA_TYPES[format]] = { schema: BODY_SCHEMAS[format] }
  route.schema = { ...route.schema, body: { content } }
}

/** JSON Patch documents a body schema that takes JSON Patch admits (RFC 6902 §3, §4.6). */
const JSON_PATCH_PROBES: readonly unknown[] = [
  [],
  [{ op: 'test', path: '', value: null }],
  [{ op: 'replace', path: '/a', value: 1 }],
]

/**
 * Whether a compiled body validator accepts `value`: Ajv's `true`/`false`, or a type
 * provider's `{ value }`/`{ error }`; undefined when it cannot tell (a throw, a promise).
 */
function accepts(validate: (value: unknown) => unknown, value: unknown): boolean | undefined {
  let result: unknown
  try {
    result = validate(value)
  } catch {
    return undefined
  }
  if (typeof result === 'boolean') return result
  if (typeof result !== 'object' || result === null || 'then' in result) return undefined
  const { error } = result as { error?: unknown }
  return error === undefined || error === null
}

/**
 * Whether the route's own body schema refuses every JSON Patch: a JSON Schema whose top-level
 * `type` has no `array` (a JSON Patch document is one, RFC 6902 §3); a schema of another kind
 * (Zod) that its compiler accepts `{}` with and refuses a few plain JSON Patch documents with.
 * A schema per media type (`body.content`) is the route's own description.
 */
function refusesJsonPatch(instance: FastifyInstance, route: RouteOptions): boolean {
  const body = (route.schema as { body?: unknown } | undefined)?.body
  if (body === undefined || body === null) return false
  if (isPlainObject(body)) {
    if ('content' in body) return false
    const type = (body as { type?: unknown }).type
    return type !== undefined && ![type].flat().includes('array')
  }
  const compiler = route.validatorCompiler ?? instance.validatorCompiler
  // None set: Fastify's own Ajv, which will refuse such a schema itself when the app starts.
  if (compiler === undefined) return false
  let validate: (value: unknown) => unknown
  try {
    validate = compiler({ schema: body, method: 'PATCH', url: route.url, httpPart: 'body' })
  } catch {
    return false
  }
  return (
    accepts(validate, {}) === true &&
    JSON_PATCH_PROBES.every((probe) => accepts(validate, probe) === false)
  )
}

/**
 * Refuses a route that offers JSON Patch while its own body schema refuses every JSON Patch:
 * each would be a 400, though `Accept-Patch` and the 415 offer the format. A merge patch may be
 * any JSON value (RFC 7396 §2), so no body schema rules it out.
 */
export function checkBodyAdmitsJsonPatch(
  instance: FastifyInstance,
  route: RouteOptions,
  formats: readonly PatchFormat[],
): void {
  if (!formats.includes('json-patch') || !refusesJsonPatch(instance, route)) return
  const keep = formats.includes('merge-patch')
    ? "set config.patch.formats to ['merge-patch'], or "
    : ''
  throw new OptionsError(
    `${NAME} (PATCH ${route.url})`,
    'schema.body',
    `refuses JSON Patch documents (arrays of operations), so every ${PATCH_MEDIA_TYPES['json-patch']} body the route offers would be a 400: ${keep}describe the body per media type (schema.body.content['${PATCH_MEDIA_TYPES['merge-patch']}'].schema)`,
  )
}
