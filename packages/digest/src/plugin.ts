/** The `@restwell/digest` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { digest } from './convention.js'

/** The `@restwell/digest` plugin. */
export const restwellDigest = conventionPlugin(digest)
