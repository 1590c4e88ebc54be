/** The `@restwell/rate-limit` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { rateLimit } from './convention.js'

/** The `@restwell/rate-limit` plugin. */
export const restwellRateLimit = conventionPlugin(rateLimit)
