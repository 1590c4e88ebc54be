/** The `@restwell/methods` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { methods } from './convention.js'

/** The `@restwell/methods` plugin. */
export const restwellMethods = conventionPlugin(methods)
