/** @restwell/compress: answers compressed by Accept-Encoding, request bodies decoded (RFC 9110 §8.4, §12.5.3). */
import './augment.js'
import { restwellCompress } from './plugin.js'

export { preferredCoding } from './accept-encoding.js'
export { isCompressible, MAX_CACHED_ACCEPT_ENCODING } from './compression.js'
export { compress } from './convention.js'
export { REQUEST_CODINGS, type RouteDecompressSettings } from './decompress.js'
export {
  type Coding,
  type CompressionSettings,
  type CompressSettings,
  CompressSettingsSchema,
  type RouteCompressSettings,
  resolveCompression,
} from './options.js'
export { restwellCompress }
export default restwellCompress
