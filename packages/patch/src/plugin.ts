/** The `@restwell/patch` plugin: patch media types, 415 + Accept-Patch, `request.applyPatch`. */
import { isUtf8 } from 'node:buffer'
import {
  contributeSend,
  type JsonBodyCheck,
  JsonTypes,
  pipelineOf,
  registerOnce,
  type RequestStep,
  type RouteEntry,
  routeLookup,
  sendHook,
  type SendStep,
  servedMethods,
  StrictAjv,
  useNotFoundSendStep,
  useRouteStep,
  useSendStep,
} from '@restwell/core'
import {
  ErrorCode,
  httpErrors,
  invalidUtf8,
  OptionsError,
  validateOptions,
  validationError,
} from '@restwell/errors'
import {
  declareState,
  isPlainSchema,
  onEveryRoute,
  type SchemaAccess,
  schemaAccess,
} from '@restwell/core'
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { ParsedPatch, RestwellPatchApi } from './augment.js'
import {
  ACCEPT_PATCH_BY_MASK,
  acceptPatchValue,
  FORMATS_BY_MASK,
  formatMask,
  PATCH_FORMATS,
  PATCH_MEDIA_TYPES,
  type PatchFormat,
  patchFormatOf,
} from './content-type.js'
import { show } from './errors.js'
import { applyCompiled, type CompiledOperation, compileJsonPatch } from './json-patch.js'
import { isPlainObject } from './json.js'
import { checkMergePatch, mergePatch } from './merge-patch.js'
import {
  type PatchOptions,
  PatchOptionsSchema,
  type PatchRouteConfig,
  PatchRouteConfigSchema,
  resolvePatchOptions,
} from './options.js'
import {
  checkReadOnly,
  checkResult,
  type DocumentValidator,
  jsonFormValidator,
  type PatchSource,
  parseReadOnly,
  readOnlyPointers,
  responseSchemaOf,
  standardValidator,
} from './resource.js'

const NAME = '@restwell/patch'

/** What a patch route needs per request, built once in `onRoute`. */
interface RouteSettings {
  readonly formats: readonly PatchFormat[]
  readonly acceptPatch: string
  readonly readOnly: readonly (readonly string[])[]
  /** The check of a patched document, made on first use; undefined: none. */
  readonly validator: (() => DocumentValidator) | undefined
  /** The check of the patch's JSON types against the route's own `schema.body`, per format. */
  readonly jsonTypes: Partial<Record<PatchFormat, JsonBodyCheck>>
}

/** The parsed patch kept on the request: the public view and, for JSON Patch, its compiled form. */
interface ParsedState {
  readonly view: ParsedPatch
  readonly compiled: readonly CompiledOperation[] | undefined
}

const ROUTE: unique symbol = Symbol('restwell.patch.route')
const PARSED: unique symbol = Symbol('restwell.patch.parsed')

interface PatchRequest {
  [ROUTE]?: RouteSettings
  [PARSED]?: ParsedState
}

function readOnlyOf(list: readonly string[], where: string): string[][] {
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

/** Converts a 200 into 204 No Content on routes configured with `status: 204`. */
export const noContent: SendStep = (_request, reply) => {
  if (reply.statusCode !== 200) return undefined
  reply.code(204)
  reply.removeHeader('content-type')
  reply.removeHeader('content-length')
  return null
}

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
function describeBody(
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
function checkBodyAdmitsJsonPatch(
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

const plugin: FastifyPluginAsync<PatchOptions> = async (fastify, rawOptions) => {
  // A child scope may register it again with options of its own (its parsers are shared).
  registerOnce(fastify, '@restwell/patch', 'patch', { scope: 'instance' })
  const options = resolvePatchOptions(validateOptions(NAME, PatchOptionsSchema, rawOptions))
  const pluginReadOnly = readOnlyOf(options.readOnly, 'readOnly')
  // Checks patched documents: no conversion, no defaults, no removal (a 422, not a silent fix).
  const validator = new StrictAjv(options.ajv)
  const jsonTypes = new JsonTypes(
    fastify,
    (route, error) =>
      new OptionsError(
        `${NAME} (PATCH ${route.url})`,
        'schema.body',
        `cannot be compiled for the check of JSON types (${error.message}): fix the schema, or give the route a validatorCompiler of its own`,
      ),
  )
  /**
   * The formats of the patch route `url` reaches, as a mask: the 405 and OPTIONS answers ask
   * on every request, so the lists and `Accept-Patch` values are made once.
   */
  function maskFor(url: string): number {
    return patchRoutes.find('PATCH', url) ?? 0
  }

  const api: RestwellPatchApi = {
    formatsFor: (url) => [...(FORMATS_BY_MASK[maskFor(url)] as readonly PatchFormat[])],
    acceptPatch: (url) => ACCEPT_PATCH_BY_MASK[maskFor(url)],
  }
  fastify.decorate('restwellPatch', api)

  declareState(fastify, 'request', ROUTE, PARSED)
  fastify.decorateRequest('patch', {
    getter(this: FastifyRequest): ParsedPatch | null {
      return (this as PatchRequest)[PARSED]?.view ?? null
    },
  })

  fastify.decorateRequest('applyPatch', function applyPatch<
    T,
  >(this: FastifyRequest, current: T): T {
    const settings = (this as PatchRequest)[ROUTE]
    const parsed = (this as PatchRequest)[PARSED]
    if (settings === undefined || parsed === undefined) {
      throw new Error(
        `${NAME}: request.applyPatch() needs a patch route whose body has been parsed`,
      )
    }
    let next: unknown
    let source: PatchSource
    if (parsed.compiled === undefined) {
      const document = (parsed.view as { document: unknown }).document
      next = mergePatch(current, document)
      source = { mergePatch: document }
    } else {
      next = applyCompiled(current, parsed.compiled)
      source = { operations: parsed.compiled }
    }
    const validate = settings.validator?.()
    // A result that is not an object replaced the whole document (a merge patch `[1,2]`, RFC
    // 7396 §2): what is wrong with it as a document is said before any field it lost.
    const replaced = !isPlainObject(next)
    if (replaced && validate !== undefined) checkResult(validate, next)
    checkReadOnly(current, next, settings.readOnly, source)
    if (!replaced && validate !== undefined) checkResult(validate, next)
    return next as T
  })

  function parse(format: PatchFormat, body: unknown): ParsedState {
    if (format === 'merge-patch') {
      checkMergePatch(body)
      return { view: { format, document: body }, compiled: undefined }
    }
    if (Array.isArray(body) && body.length > options.maxOperations) {
      throw httpErrors.payloadTooLarge(
        `A JSON Patch document may hold at most ${options.maxOperations} operations`,
        { details: [{ field: 'body', message: `more than ${options.maxOperations} operations` }] },
      )
    }
    const compiled = compileJsonPatch(body)
    return { view: { format, operations: compiled.map((op) => op.source) }, compiled }
  }

  // The same JSON parser as Fastify's own, with the app's poisoning settings (Fastify fills
  // both in initialConfig, 'error' by default).
  const config = fastify.initialConfig
  const jsonParser = fastify.getDefaultJsonParser(
    config.onProtoPoisoning!,
    config.onConstructorPoisoning!,
  )

  for (const format of PATCH_FORMATS) {
    const type = PATCH_MEDIA_TYPES[format]
    if (fastify.hasContentTypeParser(type)) continue
    fastify.addContentTypeParser(
      type,
      { parseAs: 'buffer' },
      function parsePatchBody(request: FastifyRequest, body: Buffer, done): void {
        const settings = (request as PatchRequest)[ROUTE]
        if (settings === undefined) {
          done(
            httpErrors.unsupportedMediaType(`${type} is accepted only by patch routes`, {
              code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
            }),
            undefined,
          )
          return
        }
        // RFC 8259 §8.1: JSON exchanged between systems is UTF-8. Decoding other bytes would
        // turn them into U+FFFD silently, so they are refused before anything is decoded.
        if (!isUtf8(body)) {
          done(invalidUtf8(), undefined)
          return
        }
        jsonParser(request, body.toString('utf8'), (error, value) => {
          if (error) {
            done(error, undefined)
            return
          }
          try {
            ;(request as PatchRequest)[PARSED] = parse(format, value)
          } catch (thrown) {
            done(thrown as Error, undefined)
            return
          }
          // A patch is JSON: the route's own body schema may not convert its types either.
          const problems = settings.jsonTypes[format]?.(value)
          if (problems === undefined) done(null, value)
          else done(validationError(problems, 'body'), undefined)
        })
      },
    )
  }

  function routeConfigOf(route: RouteOptions): PatchRouteConfig | undefined {
    const methods = servedMethods(route).map((method) => method.toUpperCase())
    const value: unknown = (route.config as { patch?: unknown } | undefined)?.patch
    if (value === false) return undefined
    if (value === undefined) {
      return options.everyPatchRoute && methods.includes('PATCH') ? {} : undefined
    }
    if (value === true) return {}
    return validateOptions(
      `${NAME} (config.patch of ${methods.join(',')} ${route.url})`,
      PatchRouteConfigSchema,
      value,
    )
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
    instance: FastifyInstance,
    route: RouteEntry,
    routeConfig: PatchRouteConfig,
    schema: object | undefined,
  ): (() => DocumentValidator) | undefined {
    const given = routeConfig.validate
    if (given !== undefined) return () => given
    if (schema === undefined) return undefined
    const jsonSchema =
      isPlainObject(schema) &&
      standardValidator(schema) === undefined &&
      (routeConfig.schema !== undefined || schemaAccess(instance, route).response)
    if (jsonSchema) {
      let compiled: DocumentValidator | undefined
      return () => {
        compiled ??= jsonFormValidator(validator.compile(schema, instance.getSchemas()))
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

  /** The formats of each patch route (`formatMask`), found by the URL a request names. */
  const masks = new WeakMap<RouteOptions, number>()
  onEveryRoute(fastify, function patchOnRoute(this: FastifyInstance, route) {
    const routeConfig = routeConfigOf(route)
    if (routeConfig === undefined) return
    const formats = routeConfig.formats ?? options.formats
    masks.set(route, formatMask(formats))
    const schema =
      routeConfig.schema === false
        ? undefined
        : (routeConfig.schema ?? responseSchemaOf(route.schema))
    const settings: RouteSettings = {
      formats,
      acceptPatch: acceptPatchValue(formats),
      readOnly: [
        ...pluginReadOnly,
        ...readOnlyOf(routeConfig.readOnly ?? [], 'config.patch.readOnly'),
        ...readOnlyPointers(schema),
      ],
      validator: validatorOf(this, route, routeConfig, schema),
      jsonTypes: Object.fromEntries(
        formats.map((format) => [
          format,
          jsonTypes.forRoute(this, route, PATCH_MEDIA_TYPES[format]),
        ]),
      ),
    }

    // A route for several methods (PUT and PATCH) is a patch route for its PATCH requests only;
    // a route without PATCH that opted in (a POST) is one for all its methods.
    const onlyPatch = servedMethods(route).some((method) => method.toUpperCase() === 'PATCH')
    const checkContentType: RequestStep = function checkContentType(request) {
      if (onlyPatch && request.method !== 'PATCH') return undefined
      ;(request as PatchRequest)[ROUTE] = settings
      const format = patchFormatOf(request.headers['content-type'])
      if (format !== undefined && settings.formats.includes(format)) return undefined
      const given = request.headers['content-type']
      return httpErrors.unsupportedMediaType(
        given === undefined
          ? `A patch needs a Content-Type: ${settings.acceptPatch}`
          : `Content-Type ${show(given)} is not a patch format this route accepts: ${settings.acceptPatch}`,
        {
          code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
          details: [{ field: 'headers/content-type', message: `expected ${settings.acceptPatch}` }],
          headers: { 'accept-patch': settings.acceptPatch },
        },
      )
    }
    useRouteStep(this, route, 'onRequest', 'patch', checkContentType, {
      hookName: 'checkContentType',
    })
    checkBodyAdmitsJsonPatch(this, route, formats)
    describeBody(route, formats, schemaAccess(this, route))
    if ((routeConfig.status ?? options.status) === 204) useSendStep(this, route, 'patch', noContent)
  })

  const patchRoutes = routeLookup(
    fastify,
    (route) => masks.get(route),
    (earlier, later) => earlier | later,
  )

  if (options.advertise) {
    // An OPTIONS answer that is an error (a 401 of auth's hideRoutes) describes no resource: it
    // must look the same whether the path exists or not.
    const advertise: SendStep = (request, reply) => {
      const status = reply.statusCode
      if (
        ((request.method === 'OPTIONS' && status < 300) || status === 405) &&
        !reply.hasHeader('accept-patch')
      ) {
        const value = api.acceptPatch(request.url)
        if (value !== undefined) reply.header('accept-patch', value)
      }
      return undefined
    }
    if (pipelineOf(fastify) === undefined) {
      fastify.addHook('onSend', sendHook('advertiseAcceptPatch', [advertise]))
    } else {
      // Under a pipeline: the answers of no route (405, automatic OPTIONS), and OPTIONS routes.
      useNotFoundSendStep(fastify, 'acceptPatch', advertise)
      onEveryRoute(fastify, (route) => {
        if (servedMethods(route).includes('OPTIONS'))
          contributeSend(route, 'acceptPatch', advertise)
      })
    }
  }
}

/**
 * The `@restwell/patch` plugin: every PATCH route (or those with `config.patch`) accepts
 * `application/json-patch+json` and `application/merge-patch+json`, answers 415 with
 * `Accept-Patch` otherwise, and gives the handler `request.patch` and `request.applyPatch()`.
 * Options: {@link PatchOptions}.
 * @example
 * await app.register(restwellPatch)
 * app.patch('/books/:id', { schema: { response: { 200: Book } } }, async (request) => {
 *   const next = request.applyPatch(await books.get(request.params.id))
 *   return books.put(request.params.id, next)
 * })
 */
export const restwellPatch: FastifyPluginAsync<PatchOptions> = fp(plugin, {
  fastify: '5.x',
  name: NAME,
})
