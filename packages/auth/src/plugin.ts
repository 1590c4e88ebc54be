/** The `@restwell/auth` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { auth } from './convention.js'

/** The `@restwell/auth` plugin. */
export const restwellAuth = conventionPlugin(auth)
