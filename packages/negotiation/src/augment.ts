/** Type augmentation of Fastify for `@restwell/negotiation`. */
import type { NegotiationRouteConfig, ProducedMediaType } from './options.js'

/** What was negotiated for a request, before its handler runs. */
export interface Negotiated {
  /**
   * The response media type; also at `request[MEDIA_TYPE]` when this plugin serializes it (a
   * route's own type, such as `text/csv`, is the handler's to serialize: not there).
   */
  readonly type: ProducedMediaType
  /** Its `?format=` name, if it has one. */
  readonly format: string | undefined
  /** The response language, when the route has languages. */
  readonly language: string | undefined
  /** Always `utf-8`: the only charset served. */
  readonly charset: 'utf-8'
}

/** A multipart file part as `request.body` carries it (`multipart.attachBody`). */
export interface MultipartFile {
  filename: string
  mimetype: string
  encoding: string
  data: Buffer
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The negotiation result; null on routes without negotiation. */
    negotiated: Negotiated | null
    /** The chosen response language; undefined when the route declares no languages. */
    language: string | undefined
  }
  interface FastifyContextConfig {
    /** Per-route negotiation settings; `false` turns negotiation off for the route. */
    negotiation?: NegotiationRouteConfig | false
  }
}
