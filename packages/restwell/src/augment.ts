/**
 * Type augmentation of Fastify for the umbrella's own route options. The route config keys of
 * the packages it wires in (`config.cors`, `config.rateLimit`) come with their types, imported by
 * name: a named import is what keeps their augmentations in the CommonJS declarations too.
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
