/** The `@restwell/batch` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { batch } from './convention.js'

/** The `@restwell/batch` plugin. */
export const restwellBatch = conventionPlugin(batch)
