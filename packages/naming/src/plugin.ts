/** The `@restwell/naming` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { naming } from './convention.js'

/**
 * Checks every route registered after it against the naming rules of spec part 2, and warns
 * (or fails registration) naming the route and the rule. Options: `NamingOptions`.
 * @example
 * await app.register(restwellNaming, { mode: 'error', prefixes: ['/internal'] })
 */
export const restwellNaming = conventionPlugin(naming)
