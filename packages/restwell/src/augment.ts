/**
 * Type augmentation of Fastify for the umbrella's own route options and config key. The options
 * of the libraries it wires in (`config.rateLimit`) come with their type re-exports in
 * `index.ts`: a named import is what keeps their augmentations in the CommonJS declarations too.
 */
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifySchema,
  FastifyTypeProvider,
  FastifyTypeProviderDefault,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerBase,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify'
import type { CompressSettings } from './compress.js'
import type { RouteDecompressSettings } from './decompress.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: no CORS headers on this route's answers, nor on a preflight asking about it. */
    cors?: false
  }

  interface RouteShorthandOptions<
    RawServer extends RawServerBase = RawServerDefault,
    RawRequest extends
      RawRequestDefaultExpression<RawServer> = RawRequestDefaultExpression<RawServer>,
    RawReply extends RawReplyDefaultExpression<RawServer> = RawReplyDefaultExpression<RawServer>,
    RouteGeneric extends RouteGenericInterface = RouteGenericInterface,
    ContextConfig = ContextConfigDefault,
    SchemaCompiler extends FastifySchema = FastifySchema,
    TypeProvider extends FastifyTypeProvider = FastifyTypeProviderDefault,
    Logger extends FastifyBaseLogger = FastifyBaseLogger,
  > {
    /** `false`: responses not compressed; or compression settings over the app's (no `cacheBytes`). */
    compress?: false | Omit<CompressSettings, 'cacheBytes'>
    /** `false`: request bodies not decoded; or this route's own decoding settings. */
    decompress?: false | RouteDecompressSettings
  }
}
