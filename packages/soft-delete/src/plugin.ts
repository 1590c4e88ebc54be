/** The `@restwell/soft-delete` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { softDelete } from './convention.js'

/** The `@restwell/soft-delete` plugin. */
export const restwellSoftDelete = conventionPlugin(softDelete)
