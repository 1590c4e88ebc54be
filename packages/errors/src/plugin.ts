/** The `@restwell/errors` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { errors } from './convention.js'

/** The `@restwell/errors` plugin. */
export const restwellErrors = conventionPlugin(errors)
