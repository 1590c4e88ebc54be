/** The `@restwell/pagination` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { pagination } from './convention.js'

/** The `@restwell/pagination` plugin. */
export const restwellPagination = conventionPlugin(pagination)
