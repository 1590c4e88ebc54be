/** @restwell/idempotency: Idempotency-Key, so a client can retry a POST without doing the work twice. */
import './augment.js'
import { restwellIdempotency } from './plugin.js'

export type { IdempotencyRouteSettings } from './augment.js'
export { idempotency } from './convention.js'
export { defaultScope, fingerprintOf } from './fingerprint.js'
export {
  DEFAULT_MAX_KEY_LENGTH,
  KEY_HEADER,
  type KeyReading,
  readIdempotencyKey,
} from './key.js'
export {
  DEFAULT_KEY_PREFIX,
  DEFAULT_MAX_KEYS,
  type IdempotencyOptions,
  IdempotencyOptionsSchema,
  type IdempotencyRouteConfig,
  IdempotencyRouteConfigSchema,
  type MemoryStoreConfig,
  type RedisClient,
  type RedisStoreConfig,
  STORED_HEADERS,
} from './options.js'
export { REPLAYED_HEADER } from './steps.js'
export { restwellIdempotency }
export default restwellIdempotency
