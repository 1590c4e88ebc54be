/** The `@restwell/idempotency` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { idempotency } from './convention.js'

/** The `@restwell/idempotency` plugin. */
export const restwellIdempotency = conventionPlugin(idempotency)
