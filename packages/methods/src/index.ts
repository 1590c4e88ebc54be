/** @restwell/methods: 405 with Allow, automatic OPTIONS, HEAD like GET, TRACE/CONNECT refused, 201. */
import './augment.js'
import { restwellMethods } from './plugin.js'

export { allowedMethods, sortMethods } from './allow.js'
export { methods } from './convention.js'
export { type MethodsOptions, MethodsOptionsSchema } from './options.js'
export { REFUSED_METHODS } from '@restwell/core/internal'
export { restwellMethods }
export default restwellMethods
