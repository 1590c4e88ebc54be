/** The `@restwell/conditional` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { conditional } from './convention.js'

/** The `@restwell/conditional` plugin. */
export const restwellConditional = conventionPlugin(conditional)
