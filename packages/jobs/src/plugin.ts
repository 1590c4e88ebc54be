/** The `@restwell/jobs` plugin: the convention used alone. */
import { conventionPlugin } from '@restwell/core'
import { jobs } from './convention.js'

/** The `@restwell/jobs` plugin. */
export const restwellJobs = conventionPlugin(jobs)
