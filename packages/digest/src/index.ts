/** @restwell/digest: integrity fields (RFC 9530): Repr-Digest, Content-Digest, Want-*; request digests checked. */
import './augment.js'
import { restwellDigest } from './plugin.js'

export { ALGORITHMS, type Algorithm, DIGEST_LENGTHS, digestOf } from './algorithms.js'
export { chooseAlgorithm } from './answer.js'
export { digest } from './convention.js'
export {
  MAX_MEMBERS,
  parseIntegrity,
  parsePreferences,
  serializeIntegrity,
  serializePreferences,
} from './fields.js'
export {
  type DigestOptions,
  DigestOptionsSchema,
  type DigestRouteConfig,
  DigestRouteConfigSchema,
  type DigestSettings,
} from './options.js'
export { restwellDigest }
export default restwellDigest
