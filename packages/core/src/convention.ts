/**
 * A convention declared once: its options, the step it adds in each phase of a request, what it
 * tells the other conventions, and how it describes a route in OpenAPI. `conventionPlugin` runs
 * one convention alone; `installPipeline` (the umbrella's) runs many, in the order of its lists.
 */
import type { FastifyInstance } from 'fastify'
import type { BodyStep, RequestStep, SendStep } from './plan.js'
import type { RouteEntry } from './routes.js'

/**
 * When a route's step runs, in the order of a request:
 * - `guard`: who may make the request (the route's first `onRequest` hook);
 * - `beforeBody`: before the body is read (the route's `preParsing`);
 * - `beforeHandler`: once the body is read and validated (the route's `preHandler`);
 * - `serialize`: on the value the handler returned (the route's `preSerialization`);
 * - `send`: on the bytes about to be sent (the route's `onSend`).
 */
export type RoutePhase = 'guard' | 'beforeBody' | 'beforeHandler' | 'serialize' | 'send'

/**
 * When a step of the whole app runs:
 * - `request`: on every request, before its route's steps (one root `onRequest` hook);
 * - `notFoundSend`: on the answers of no route (404, 405, an automatic OPTIONS);
 * - `notFoundHandler`: before the not-found handler answers (what `reply.callNotFound()` runs).
 */
export type AppPhase = 'request' | 'notFoundSend' | 'notFoundHandler'

/** Every phase a convention may have a step in. */
export type Phase = RoutePhase | AppPhase

/** The phases in the order a request meets them. */
export const PHASES: readonly Phase[] = [
  'request',
  'guard',
  'beforeBody',
  'beforeHandler',
  'serialize',
  'send',
  'notFoundHandler',
  'notFoundSend',
]

/**
 * The kind of step each phase runs: a request step before the handler (before the body is read,
 * a body step too, which may replace the body stream), a send step after.
 */
export type StepOf<P extends Phase> = P extends 'serialize' | 'send' | 'notFoundSend'
  ? SendStep
  : P extends 'beforeBody'
    ? RequestStep | BodyStep
    : RequestStep

/** What a convention adds to one route: at most one step per phase it declares. */
export type RouteSteps<P extends Phase = Phase> = {
  readonly [K in Extract<P, RoutePhase>]?: StepOf<K>
}

/** The app-wide steps of a convention, made once its settings are known. */
export type AppSteps<P extends Phase = Phase> = {
  readonly [K in Extract<P, AppPhase>]?: StepOf<K>
}

/** One route as a convention sees it when the route is added. */
export interface RouteContext<Config> {
  /** The route's options, as `onRoute` hooks get them (a convention may add to its schema). */
  readonly route: RouteEntry
  /** The instance the route was added on (a scope's decorators and compilers are read here). */
  readonly instance: FastifyInstance
  /** The methods the route is set up for (a method-override twin's: the one it stands for). */
  readonly methods: readonly string[]
  /** The route's own settings, `config[routeConfigKey]`, validated; undefined when not given. */
  readonly config: Config | undefined
  /** The route as messages name it: `GET /books/:id`. */
  readonly name: string
}

/**
 * What the conventions of one pipeline tell each other, each adding its own: a convention that
 * reads a query parameter or a request header, or sends a response header, says so here, and
 * another reads the whole app's list (CORS exposes every header sent; pagination refuses no query
 * parameter another convention reads).
 */
export interface Contributions {
  /** Query parameters the convention reads. */
  readonly queryParameters: readonly string[]
  /** Request headers it reads that are not CORS-safelisted (CORS allows them). */
  readonly requestHeaders: readonly string[]
  /** Response headers it sends that a browser script may read (CORS exposes them). */
  readonly responseHeaders: readonly string[]
}

/** What a convention's setup may ask of the pipeline it is installed in. */
export interface SetupContext {
  /**
   * What every convention of the pipeline contributes, this one's included (alone: this one's).
   * Known only once every convention is installed: read it from a step or a route function.
   */
  contributions(): Contributions
  /** Whether the convention runs under a pipeline (the umbrella) rather than alone. */
  readonly pipeline: boolean
  /**
   * Under a pipeline, the response headers of `contributions()` the answers of one route may
   * carry (each convention's `routeResponseHeaders`); alone, undefined. Read it from a step.
   */
  readonly routeResponseHeaders?: (
    instance: FastifyInstance,
    route: RouteEntry,
  ) => readonly string[]
  /**
   * The umbrella that installed the convention from its option of the convention's name
   * (`'restwell'`), if one did: the convention's option errors then name that option.
   */
  readonly umbrella?: string
}

/** How an option error of a convention names the plugin and the option (see `optionNaming`). */
export interface OptionNaming {
  /** What the message begins with: the plugin, or the umbrella that was given the options. */
  readonly plugin: string
  /** The path of the option `field` as the app wrote it. */
  option(field: string): string
}

/**
 * How a convention's option errors name what the app wrote: the umbrella and its option
 * (`restwell`, `cors.origin`) when the umbrella installed it, the plugin and its own option
 * (`@restwell/cors`, `origin`) otherwise.
 *
 * @param convention the convention's `name` (the umbrella's option) and `plugin`
 * @param context what its setup was given
 * @example
 * const naming = optionNaming(cors, context)
 * throw new OptionsError(naming.plugin, naming.option('origin'), 'must name the origins')
 */
export function optionNaming(
  convention: { readonly name: string; readonly plugin: string },
  context: SetupContext,
): OptionNaming {
  const { umbrella } = context
  if (umbrella === undefined) return { plugin: convention.plugin, option: (field) => field }
  return { plugin: umbrella, option: (field) => `${convention.name}.${field}` }
}

/** A response header a convention describes: its name, what it says, its type (`string`). */
type DescribedHeader = readonly [name: string, description: string, type?: 'integer' | 'string']

/** What a convention says of one route for the OpenAPI document. */
export interface RouteDescription {
  /**
   * Statuses the route may answer because of this convention, with a one-line description, the
   * headers such an answer carries, and in the problem form (RFC 9457 §3) its problem `type`
   * and the JSON Schema of each extension member it adds.
   */
  readonly responses?: ReadonlyArray<
    readonly [
      status: number,
      description: string,
      answer?: {
        readonly headers?: ReadonlyArray<DescribedHeader>
        /**
         * The JSON Schema of its body, for the document only (on a 2xx, in each representation
         * the route produces): the schema Fastify serializes with gains neither this status nor
         * its body, so the answer is sent as the route makes it.
         */
        readonly content?: Readonly<Record<string, unknown>>
        readonly problem?: {
          readonly type: string
          readonly members: Readonly<Record<string, Readonly<Record<string, unknown>>>>
        }
      },
    ]
  >
  /**
   * Request headers it reads on this route, with a description; `required`: the document marks
   * it required, while Fastify's validation leaves its absence to the convention to answer.
   */
  readonly requestHeaders?: ReadonlyArray<
    readonly [name: string, description: string, required?: boolean]
  >
  /**
   * Headers it sends on a success of this route, with a description: on each success the
   * route's schema names (a 200 when it names none), or on the `statuses` given only.
   *
   * @example
   * // A validator on the 200 of a read only, a replay marker on every success.
   * responseHeaders: [['ETag', 'The entity tag', [200]], ['Idempotent-Replayed', '`true` on a replay']]
   */
  readonly responseHeaders?: ReadonlyArray<
    readonly [name: string, description: string, statuses?: readonly number[]]
  >
  /** Headers it sends on every answer of this route, errors included. */
  readonly answerHeaders?: ReadonlyArray<DescribedHeader>
  /**
   * Headers it adds to the answers of a status it does not answer itself, where the route has
   * that status (another convention's, or the route's own; `'success'`: each 2xx); the document
   * shows them, the route's schema is left as it is.
   *
   * @example
   * // The patch formats on the 405 and 415 the methods and body checks answer.
   * const accept = [['Accept-Patch', 'The patch formats this route accepts']] as const
   * return { statusHeaders: [[405, accept], [415, accept]] }
   */
  readonly statusHeaders?: ReadonlyArray<
    readonly [status: number | 'success', headers: ReadonlyArray<DescribedHeader>]
  >
  /**
   * What protects the route: the security scheme (an OpenAPI Security Scheme Object) the
   * document defines under `name` in `components.securitySchemes` (unless the app defines
   * one), and the scopes the route requires. On a scheme other than OAuth2 and OpenID Connect,
   * where OpenAPI 3.0 takes no scopes, the scopes are named in the operation's description.
   *
   * @example
   * security: { name: 'bearerAuth', scheme: { type: 'http', scheme: 'bearer' }, scopes: ['read'] }
   */
  readonly security?: {
    readonly name: string
    readonly scheme: Readonly<Record<string, unknown>>
    readonly scopes: readonly string[]
  }
}

/**
 * The declaration of a convention (see `defineConvention`). `Options` is what the app gives,
 * `Settings` what `setup` makes of it (what the steps read), `Config` a route's own settings,
 * `P` the phases it has steps in.
 */
export interface ConventionSpec<
  Name extends string,
  Input,
  Options,
  Settings,
  Config,
  P extends Phase,
> {
  /** The umbrella's option for it, and the name the pipeline's lists know it by. */
  readonly name: Name
  /** The plugin's name (`@restwell/<package>`): what `hasPlugin` and messages use. */
  readonly plugin: string
  /** The phases it has steps in; the pipeline lists it in each. */
  readonly phases: readonly P[]
  /**
   * The route config key of its own settings (`config.<key>`, `false` turning it off there), or
   * `false` when it reads none (its route settings are route options of its own). [name]
   */
  readonly routeConfigKey?: string | false
  /** Validates the app's options and resolves their defaults; throws `OptionsError` naming the field. */
  options(raw: Input): Options
  /** Validates a route's own settings; `where` names the route for the message. */
  routeConfig?(raw: unknown, where: string): Config
  /** Once per registration: decorators, parsers, checks at ready; returns what the steps read. */
  setup(
    fastify: FastifyInstance,
    options: Options,
    context: SetupContext,
  ): Settings | Promise<Settings>
  /** Its app-wide steps (`request`, `notFoundSend`, `notFoundHandler`). */
  app?(settings: Settings): AppSteps<P>
  /**
   * Its steps for one route, decided once when the route is added (never per request), or
   * undefined when it does nothing there. Not called where `config.<key>` is `false`.
   */
  route?(context: RouteContext<Config>, settings: Settings): RouteSteps<P> | undefined
  /** What it contributes to the app's lists (see `Contributions`). */
  contributes?(options: Options): Partial<Contributions>
  /**
   * The response headers of those it contributes that its steps may send on the answers of one
   * route (CORS exposes only those there), decided once per route; absent: every one it
   * contributes, on every route. Not asked where `config.<key>` is `false` (then none).
   */
  routeResponseHeaders?(context: RouteContext<Config>, settings: Settings): readonly string[]
  /** How it describes one route in the OpenAPI document. */
  describe?(context: RouteContext<Config>, settings: Settings): RouteDescription | undefined
  /**
   * Where it may be registered again: once per scope chain (`'chain'`, the default), or once
   * per instance, a child scope again with options of its own (`'instance'`).
   */
  readonly scope?: 'chain' | 'instance'
  /**
   * Alone, where its hook of each route phase goes (see `AlonePlacement`), or a function of the
   * route's methods that says (a HEAD route's send hook must come before Fastify's, which drops
   * the body).
   */
  readonly alone?: {
    readonly [K in Extract<P, RoutePhase>]?:
      | AlonePlacement<K>
      | ((methods: readonly string[]) => AlonePlacement<K>)
  }
}

/**
 * Alone, where a convention's hook of a route phase goes among the route's own hooks of that
 * phase: after them (`'last'`, the default: registration order is run order) or before them
 * (`'first'`: the hooks conventions put first run in registration order too). A `beforeBody` step may run before the route's own `onRequest` hooks instead
 * (`'onRequest'`), so that every hook of the route sees what it decided.
 */
export type AlonePlacement<K extends RoutePhase> = K extends 'beforeBody'
  ? 'first' | 'last' | 'onRequest'
  : 'first' | 'last'

/** A declared convention: what `conventionPlugin` and a pipeline run. */
export interface Convention<
  Name extends string = string,
  Input = unknown,
  Options = unknown,
  Settings = unknown,
  Config = unknown,
  P extends Phase = Phase,
> extends ConventionSpec<Name, Input, Options, Settings, Config, P> {
  /** Marks the value as declared (the pipeline refuses anything else). */
  readonly kind: 'restwell.convention'
  /** Each phase it has a step in, as a key: what lets a pipeline's list of a phase type-check. */
  readonly has: { readonly [K in P]: true }
}

/**
 * Any declared convention, whatever its options, settings and phases: the spec's functions are
 * methods, whose parameters TypeScript compares both ways, so each convention's own types fit
 * `unknown`; `has` names some of the phases.
 */
export type AnyConvention = Omit<Convention<string, unknown, unknown, unknown, unknown>, 'has'> & {
  readonly has: { readonly [K in Phase]?: true }
}

/**
 * Declares a convention. The value is what the package exports: the plugin used alone is
 * `conventionPlugin(value)`, and the umbrella's pipeline lists the value itself.
 *
 * @param spec the convention's name, options, phases, setup and steps (see `ConventionSpec`)
 * @example
 * export const poweredBy = defineConvention({
 *   name: 'poweredBy',
 *   plugin: '@acme/powered-by',
 *   phases: ['send'],
 *   options: (raw) => ({ value: (raw as { value?: string } | undefined)?.value ?? 'restwell' }),
 *   setup: (_fastify, options) => options,
 *   route: (_route, settings) => ({
 *     send: (_request, reply) => void reply.header('x-powered-by', settings.value),
 *   }),
 * })
 */
export function defineConvention<
  const Name extends string,
  Input,
  Options,
  Settings,
  Config = undefined,
  const P extends Phase = never,
>(
  spec: ConventionSpec<Name, Input, Options, Settings, Config, P>,
): Convention<Name, Input, Options, Settings, Config, P> {
  const phases = new Set<Phase>(spec.phases)
  for (const phase of spec.phases) {
    if (!PHASES.includes(phase)) {
      throw new TypeError(`${spec.plugin}: unknown phase ${JSON.stringify(phase)}`)
    }
  }
  if (phases.size !== spec.phases.length) {
    throw new TypeError(`${spec.plugin}: a phase is listed twice in phases`)
  }
  const has = Object.fromEntries(spec.phases.map((phase) => [phase, true])) as {
    readonly [K in P]: true
  }
  return Object.freeze({ ...spec, kind: 'restwell.convention' as const, has })
}

/** Whether `value` was made by `defineConvention`. */
export function isConvention(value: unknown): value is AnyConvention {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'restwell.convention'
  )
}

/** A convention that has a step in `P`: what a pipeline's list of phase `P` takes. */
export interface WithPhase<P extends Phase> {
  readonly kind: 'restwell.convention'
  readonly name: string
  readonly plugin: string
  readonly has: { readonly [K in P]: true }
}
