/** The `@restwell/cache-control` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { cacheControl } from './convention.js'

/** The `@restwell/cache-control` plugin. */
export const restwellCacheControl = conventionPlugin(cacheControl)
