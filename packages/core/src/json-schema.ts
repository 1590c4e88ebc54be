/**
 * JSON Schema checks of values as they are: a patched document against its resource schema,
 * a JSON request body against the route's body schema before Fastify's validator converts it.
 */
import { createRequire } from 'node:module'
import type { Ajv, ErrorObject, Options as AjvOptions, ValidateFunction } from 'ajv'
import type ajvFormats from 'ajv-formats'
import type { FastifyInstance } from 'fastify'
import { isPlainSchema, type RouteEntry, schemaAccess } from './routes.js'

/** What a strict Ajv may still do to the value it checks (Fastify's default Ajv does both). */
export interface StrictAjvMutations {
  /** Fill in `default`s. [false] */
  useDefaults?: boolean
  /** Remove members `additionalProperties: false` does not allow. [false] */
  removeAdditional?: boolean
}

/**
 * One Ajv that never converts types (`coerceTypes` off), created on the first schema compiled.
 * It knows the formats Fastify's own validator knows (@fastify/ajv-compiler loads ajv-formats
 * with its defaults: every format, full mode, and the `formatMinimum`... keywords), so a schema
 * checks a value as Fastify checks a body; formats given in `options.formats` take precedence.
 * @param options Ajv options (`formats`, `keywords`, ...); `coerceTypes` is always off. [`{}`]
 * @param mutations Defaults and removal, off unless asked for. [none]
 * @example
 * const ajv = new StrictAjv()
 * const validate = ajv.compile({ type: 'object' }, app.getSchemas())
 */
export class StrictAjv {
  readonly #options: AjvOptions
  readonly #mutations: Required<StrictAjvMutations>
  #ajv: Ajv | undefined

  constructor(options: AjvOptions = {}, mutations: StrictAjvMutations = {}) {
    this.#options = options
    this.#mutations = {
      useDefaults: mutations.useDefaults ?? false,
      removeAdditional: mutations.removeAdditional ?? false,
    }
  }

  /** Compiles `schema`, first adding the shared schemas (`fastify.getSchemas()`) it may `$ref`. */
  compile(schema: object, shared: Readonly<Record<string, unknown>>): ValidateFunction {
    this.#ajv ??= this.#create()
    const ajv = this.#ajv
    for (const [id, value] of Object.entries(shared)) {
      if (ajv.getSchema(id) === undefined && isPlainSchema(value)) ajv.addSchema(value, id)
    }
    return ajv.compile(schema)
  }

  #create(): Ajv {
    // Loaded here, on the first schema compiled: an app that compiles none never loads Ajv.
    const load = createRequire(import.meta.url)
    const { Ajv } = load('ajv') as typeof import('ajv')
    // ajv-formats' `module.exports` is the plugin and carries it as `default` too; TypeScript
    // types the module as the namespace, whose `default` is the plugin.
    const addFormats = (load('ajv-formats') as typeof ajvFormats).default
    const ajv = new Ajv({
      allErrors: true,
      strict: false,
      logger: false,
      ...this.#options,
      coerceTypes: false,
      ...this.#mutations,
    })
    addFormats(ajv)
    // ajv-formats replaces formats of the same name: the caller's own win.
    for (const [name, format] of Object.entries(this.#options.formats ?? {})) {
      if (format !== undefined) ajv.addFormat(name, format)
    }
    return ajv
  }
}

/**
 * The problems of a JSON body with its route's body schema (AJV's errors), or undefined.
 * `compile()` compiles it now (it is compiled on first use otherwise): call it when the app is
 * ready, so a schema this check cannot compile fails there, naming the route.
 */
export interface JsonBodyCheck {
  (body: unknown): readonly ErrorObject[] | undefined
  compile(): void
}

/**
 * The route's JSON Schema for bodies of `mediaType`: `schema.body`, or its
 * `content[mediaType].schema`; undefined when it has none, or none that is a plain object.
 */
function bodySchemaOf(route: RouteEntry, mediaType: string): object | undefined {
  const schema: unknown = route.schema
  if (!isPlainSchema(schema)) return undefined
  const body = schema['body']
  if (!isPlainSchema(body)) return undefined
  const content = body['content']
  if (!isPlainSchema(content)) return body
  const entry = content[mediaType]
  const typed = isPlainSchema(entry) ? entry['schema'] : undefined
  return isPlainSchema(typed) ? typed : undefined
}

/**
 * Keeps JSON bodies' types: JSON has them, so a body of the wrong type (`{"name": 123}` for a
 * string) is refused before Fastify's default Ajv (`coerceTypes: 'array'`) converts it
 * (`"123"`). Query, path and header values, which are text, are still converted by Fastify.
 * One instance per plugin, whose two Ajvs its checks share.
 * @example
 * const types = new JsonTypes(fastify, (route, error) => new OptionsError(...))
 * const check = types.forRoute(this, route, 'application/json') // in an onRoute hook
 * const problems = check?.(body) // in the body parser: AJV errors, or undefined
 */
export class JsonTypes {
  /** Checks the body as it came: fails on any problem, changes nothing. */
  readonly #asSent = new StrictAjv({ allErrors: false })
  /** Fastify's defaults but conversion, on a copy: tells conversion from defaults and removal. */
  readonly #asFastify = new StrictAjv(
    { allErrors: false },
    { useDefaults: true, removeAdditional: true },
  )

  readonly #pending: { route: RouteEntry; check: JsonBodyCheck }[] = []

  /**
   * @param fastify The plugin's instance: its checks are compiled when the app is ready, with
   * every shared schema, and one that cannot be fails `ready()` with `refuse`'s error.
   * @param refuse The registration error for a route whose body schema cannot be compiled.
   */
  constructor(fastify: FastifyInstance, refuse: (route: RouteEntry, error: Error) => Error) {
    fastify.addHook('onReady', async () => {
      const failed = this.compileAll()
      if (failed !== undefined) throw refuse(failed.route, failed.error)
    })
  }

  /**
   * The check of `route`'s JSON bodies of `mediaType`, for an `onRoute` hook (`instance` is its
   * `this`); undefined when Fastify's default validator does not check them (a custom validator
   * compiler, no JSON Schema body) or the route handles its own validation errors
   * (`attachValidation`).
   */
  forRoute(
    instance: FastifyInstance,
    route: RouteEntry,
    mediaType: string,
  ): JsonBodyCheck | undefined {
    if (route.attachValidation === true || !schemaAccess(instance, route).validation) return
    const schema = bodySchemaOf(route, mediaType)
    if (schema === undefined) return undefined
    let compiled: { asSent: ValidateFunction; asFastify: ValidateFunction } | undefined
    const compile = (): void => {
      if (compiled !== undefined) return
      const shared = instance.getSchemas()
      const asSent = this.#asSent.compile(schema, shared)
      compiled = { asSent, asFastify: this.#asFastify.compile(schema, shared) }
    }
    const check = (body: unknown): readonly ErrorObject[] | undefined => {
      if (compiled === undefined) compile()
      const { asSent, asFastify } = compiled!
      if (asSent(body)) return undefined
      // Valid once defaults are filled in and unknown members dropped: Fastify's to decide, with
      // the app's own settings for both. On a copy, so this check changes nothing.
      if (asFastify(structuredClone(body))) return undefined
      return asFastify.errors as ErrorObject[]
    }
    const made = Object.assign(check, { compile })
    this.#pending.push({ route, check: made })
    return made
  }

  /**
   * Compiles every check made since the last call (the `onReady` hook calls it): the first one
   * that cannot be compiled, with its route and Ajv's error, else undefined.
   */
  compileAll(): { route: RouteEntry; error: Error } | undefined {
    for (const { route, check } of this.#pending.splice(0)) {
      try {
        check.compile()
      } catch (error) {
        return { route, error: error as Error }
      }
    }
    return undefined
  }
}
