/** The `@restwell/overload` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { overload } from './convention.js'

/** The `@restwell/overload` plugin. */
export const restwellOverload = conventionPlugin(overload)
