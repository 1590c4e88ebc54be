/** The `@restwell/method-override` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { methodOverride } from './convention.js'

/**
 * Turns a POST carrying `X-HTTP-Method-Override: <METHOD>` or `?_method=<METHOD>` into that
 * method before routing, so the target route's schema, hooks and handler run.
 *
 * @param methods Methods a POST may be turned into. [`['PUT', 'PATCH', 'DELETE', 'QUERY']`]
 * @param header Request header carrying the method, or `false`. [`x-http-method-override`]
 * @param query Query parameter carrying the method, or `false`. [`_method`]
 * @example
 * await app.register(restwellMethodOverride, { methods: ['PUT', 'PATCH', 'DELETE'] })
 */
export const restwellMethodOverride = conventionPlugin(methodOverride)
