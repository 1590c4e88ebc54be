/** The `@restwell/reroute` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { reroute } from './convention.js'

/**
 * Installs the shared rewrite now, so that it runs before the `onRequest` hooks of plugins
 * registered later. Optional: method override installs it itself.
 *
 * @example
 * await app.register(restwellReroute)
 */
export const restwellReroute = conventionPlugin(reroute)
