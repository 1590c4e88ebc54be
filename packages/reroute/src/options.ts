/** Options of `@restwell/reroute`: none. */
import { type Static, Type } from '@sinclair/typebox'

export const RerouteOptionsSchema = Type.Object({}, { additionalProperties: false })

/** `@restwell/reroute` takes no options. */
export type RerouteOptions = Static<typeof RerouteOptionsSchema>
