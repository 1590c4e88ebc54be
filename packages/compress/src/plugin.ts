/** The `@restwell/compress` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { compress } from './convention.js'

/** The `@restwell/compress` plugin. */
export const restwellCompress = conventionPlugin(compress)
