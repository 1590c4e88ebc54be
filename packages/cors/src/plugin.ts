/** The `@restwell/cors` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { cors } from './convention.js'

/** The `@restwell/cors` plugin. */
export const restwellCors = conventionPlugin(cors)
