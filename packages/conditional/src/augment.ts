/** Type augmentation of Fastify for `@restwell/conditional`. */
import type { FastifyRequest, RouteGenericInterface } from 'fastify'
import type { Version } from './etag.js'
import type { DateValue } from './http-date.js'

/** The validators of a resource's stored state, as a route's `getValidator` returns them. */
export interface ResourceValidators {
  /**
   * A version, a quoted entity-tag (`"v7"`, `W/"v7"`), or a number; the versions of the parts of
   * a representation made of several (`[book.version, author.version]`, see `combineVersions`).
   */
  etag?: Version | undefined
  /** Marks `etag` weak. */
  weak?: boolean | undefined
  /** The last modification; of several parts, the dates of each (the latest is used). */
  lastModified?: DateValue | undefined
}

/**
 * Reads the current validators of the target resource before the handler runs; `null` or
 * `undefined` when the resource does not exist, `{}` when it exists with no validator to compare
 * (a collection a POST adds to). `RouteGeneric` types the request as the route's
 * (`{ Params: { id: string } }`): see `defineValidator`.
 */
export type GetValidator<RouteGeneric extends RouteGenericInterface = RouteGenericInterface> = (
  request: FastifyRequest<RouteGeneric>,
) => ResourceValidators | null | undefined | Promise<ResourceValidators | null | undefined>

/** `config.conditional` of one route; `false` turns the plugin off for the route. */
export interface ConditionalRouteConfig {
  /** Hash the body into an ETag when no validator is given. [plugin `etag`] */
  etag?: boolean
  /** Hashed ETags are weak. [plugin `weak`] */
  weak?: boolean
  /** Answer Range requests. [plugin `ranges`] */
  ranges?: boolean
  /** A write without a precondition the check uses gets 428 (needs `getValidator`). [plugin `requirePrecondition`] */
  requirePrecondition?: boolean
  /** Add `Vary: Accept-Encoding` to 200/206/304. [plugin `varyAcceptEncoding`, else auto] */
  varyAcceptEncoding?: boolean
  /**
   * Top-level field of the returned object that holds a version; used as the ETag, no hashing.
   * A returned collection (an array, or an object with one array of items, as a page) whose
   * items all carry this field and `idField` gets an ETag derived from their ids and versions,
   * the URL and the rest of the object: a 304 without serializing or hashing the body.
   */
  etagField?: string
  /** Field of each collection item that identifies it (with `etagField`). ['id'] */
  idField?: string
  /** Top-level field of the returned object that holds the last modification date. */
  lastModifiedField?: string
  /**
   * The stored resource's validators, read in a preHandler: writes are checked against them.
   * Its request is typed as the route's with `defineValidator<{ Params: … }>(request => …)`.
   */
  getValidator?: GetValidator
  /**
   * The route's PUT (and PATCH) may create a missing target: its preconditions are evaluated
   * against no representation (If-Match → 412, If-None-Match `*` passes). When false, a write to
   * a missing target (`getValidator` gives nothing) is 404 before the handler runs, whatever it
   * carries. POST is always evaluated, DELETE never creates. [true for PUT, false for PATCH]
   */
  creates?: boolean
}

export interface EtagOptions {
  /** Send `W/"..."`. [false] */
  weak?: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    conditional?: false | ConditionalRouteConfig
  }
  interface FastifyReply {
    /**
     * Sets the ETag from a version the handler knows (quoted if needed), or from the versions of
     * the parts the representation is made of (`[book.version, author.version]`); no hashing
     * then. A representation other than the route's default (another media type or language)
     * gets its own tag: `"7;xml"`.
     */
    etag(value: Version, options?: EtagOptions): FastifyReply
    /** Sets Last-Modified (IMF-fixdate, whole seconds, never in the future); of several dates, the latest. */
    lastModified(date: DateValue): FastifyReply
  }
}
