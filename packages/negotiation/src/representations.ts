/** Hypermedia representations of a resource or a collection: HAL, JSON:API and Siren. */
import type { PageInfo, PageLinks } from '@restwell/core'

/** What a serializer needs to know about the response besides its payload. */
export interface RepresentationContext {
  /** The URL of what is sent: the request path and query, or `Location` after a 201. */
  self: string
  /** The request path without query: the base of an item's link inside a collection. */
  path: string
  /**
   * Query (without `?`) every item link of a collection carries: the API version the
   * collection was fetched in (`version=2`), so an item's link names the same version.
   */
  itemQuery?: string | undefined
  /** Resource type name (JSON:API `type`, Siren `class`). */
  type: string
  /** Collection name (HAL `_embedded` key, Siren collection `class`). */
  collection: string
  /** The field holding a resource's id. */
  idField: string
  /** Page info left by `@restwell/pagination`, if any. */
  page: PageInfo | undefined
}

type Json = Record<string, unknown>

const PAGE_RELS = ['first', 'prev', 'next', 'last'] as const

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The link of one item of a collection: `<path>/<id>` (with `?<itemQuery>` when there is one),
 * when the item has a usable id.
 */
export function itemHref(item: unknown, context: RepresentationContext): string | undefined {
  if (!isObject(item)) return undefined
  const id = item[context.idField]
  if (typeof id !== 'string' && typeof id !== 'number') return undefined
  const base = context.path.endsWith('/') ? context.path.slice(0, -1) : context.path
  const href = `${base}/${encodeURIComponent(String(id))}`
  return context.itemQuery === undefined ? href : `${href}?${context.itemQuery}`
}

/** The items and links of a collection payload (a page or a plain array); undefined otherwise. */
function collectionOf(
  payload: unknown,
  context: RepresentationContext,
): { items: readonly unknown[]; links: PageLinks; meta: Json | undefined } | undefined {
  if (context.page !== undefined) {
    const meta: Json = {}
    for (const [key, value] of Object.entries(context.page.meta)) {
      if (value !== undefined) meta[key] = value
    }
    return { items: context.page.items, links: context.page.links, meta }
  }
  if (Array.isArray(payload))
    return { items: payload, links: { self: context.self }, meta: undefined }
  return undefined
}

function pageLinks(links: PageLinks): [string, string][] {
  const out: [string, string][] = [['self', links.self]]
  for (const rel of PAGE_RELS) {
    const href = links[rel]
    if (href !== undefined) out.push([rel, href])
  }
  return out
}

// ---------------------------------------------------------------- HAL

function halResource(value: unknown, href: string | undefined): Json {
  if (!isObject(value))
    return href === undefined ? { value } : { _links: { self: { href } }, value }
  const { _links: links, ...rest } = value
  const own = isObject(links) ? links : {}
  return href === undefined && !isObject(links)
    ? rest
    : { _links: { ...(href === undefined ? {} : { self: { href } }), ...own }, ...rest }
}

/**
 * HAL (draft-kelly-json-hal): a resource with `_links.self`; a collection with `_links` (self,
 * first, prev, next, last) and the items under `_embedded.<collection>`, page meta as state.
 */
export function toHal(payload: unknown, context: RepresentationContext): Json {
  const collection = collectionOf(payload, context)
  if (collection === undefined) return halResource(payload, context.self)
  const links: Json = {}
  for (const [rel, href] of pageLinks(collection.links)) links[rel] = { href }
  return {
    _links: links,
    ...collection.meta,
    _embedded: {
      [context.collection]: collection.items.map((item) =>
        halResource(item, itemHref(item, context)),
      ),
    },
  }
}

// ---------------------------------------------------------------- JSON:API

const RESERVED = new Set(['id', 'type'])

function jsonApiResource(
  value: unknown,
  context: RepresentationContext,
  href: string | undefined,
): Json {
  const resource: Json = { type: context.type }
  if (!isObject(value)) {
    resource['attributes'] = { value }
    if (href !== undefined) resource['links'] = { self: href }
    return resource
  }
  const id = value[context.idField]
  if (id !== undefined && id !== null) resource['id'] = String(id)
  const attributes: Json = {}
  const meta: Json = {}
  for (const [key, field] of Object.entries(value)) {
    if (key === context.idField) continue
    // JSON:API forbids attributes named `id` or `type` (§5.2.2.1): they go to the resource meta.
    if (RESERVED.has(key)) meta[key] = field
    else attributes[key] = field
  }
  resource['attributes'] = attributes
  if (Object.keys(meta).length > 0) resource['meta'] = meta
  if (href !== undefined) resource['links'] = { self: href }
  return resource
}

/**
 * JSON:API 1.1: `data` is a resource object `{ type, id, attributes, links }` or an array of
 * them; a collection carries top-level `links` (self, first, prev, next, last) and page `meta`.
 */
export function toJsonApi(payload: unknown, context: RepresentationContext): Json {
  const collection = collectionOf(payload, context)
  if (collection === undefined) {
    if (payload === null) return { data: null, links: { self: context.self } }
    return { data: jsonApiResource(payload, context, context.self), links: { self: context.self } }
  }
  const document: Json = {
    data: collection.items.map((item) => jsonApiResource(item, context, itemHref(item, context))),
    links: Object.fromEntries(pageLinks(collection.links)),
  }
  if (collection.meta !== undefined) document['meta'] = collection.meta
  return document
}

// ---------------------------------------------------------------- Siren

function sirenProperties(value: unknown): Json {
  return isObject(value) ? value : { value }
}

/**
 * Siren: an entity `{ class, properties, links }`; a collection has class
 * `[<collection>, 'collection']`, page meta as properties, the items as embedded `entities`
 * (rel `item`) and links self, first, prev, next, last.
 */
export function toSiren(payload: unknown, context: RepresentationContext): Json {
  const collection = collectionOf(payload, context)
  if (collection === undefined) {
    return {
      class: [context.type],
      properties: sirenProperties(payload),
      links: [{ rel: ['self'], href: context.self }],
    }
  }
  return {
    class: [context.collection, 'collection'],
    properties: collection.meta ?? { count: collection.items.length },
    entities: collection.items.map((item) => {
      const href = itemHref(item, context)
      const entity: Json = {
        class: [context.type],
        rel: ['item'],
        properties: sirenProperties(item),
      }
      if (href !== undefined) entity['links'] = [{ rel: ['self'], href }]
      return entity
    }),
    links: pageLinks(collection.links).map(([rel, href]) => ({ rel: [rel], href })),
  }
}
