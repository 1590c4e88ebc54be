/** @restwell/methods: 405 with Allow, automatic OPTIONS, HEAD like GET, TRACE/CONNECT refused, 201. */
import './augment.js'
import { restwellMethods } from './plugin.js'

export { allowedMethods, REFUSED_METHODS, sortMethods } from './allow.js'
export { type MethodsOptions, MethodsOptionsSchema } from './options.js'
export { restwellMethods }
export default restwellMethods
