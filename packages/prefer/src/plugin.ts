/** The `@restwell/prefer` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { prefer } from './convention.js'

/** The `@restwell/prefer` plugin. */
export const restwellPrefer = conventionPlugin(prefer)
