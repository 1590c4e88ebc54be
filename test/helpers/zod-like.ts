/**
 * A Zod-style type provider's compilers, shaped as fastify-type-provider-zod's
 * `validatorCompiler` and `serializerCompiler`, over a tiny stand-in for Zod schemas: they call
 * `safeParse` on whatever schema they are given, which a plain JSON Schema object lacks.
 */
import type { FastifyInstance, FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify'

/** What a type provider's compilers take: any schema (they expect their own kind). */
type AnySchema = unknown

type Parsed = { success: true; data: unknown } | { success: false; error: Error }

/** Stands in for a Zod schema: an instance whose methods a copy (`{ ...schema }`) would lose. */
export class ZodLike {
  readonly #check: (data: unknown) => boolean
  constructor(check: (data: unknown) => boolean) {
    this.#check = check
  }
  safeParse(data: unknown): Parsed {
    return this.#check(data)
      ? { success: true, data }
      : { success: false, error: new Error('invalid') }
  }
}

export const zObject = (): ZodLike =>
  new ZodLike((data) => typeof data === 'object' && data !== null)
export const zAny = (): ZodLike => new ZodLike(() => true)

export interface ZodCompilers {
  validatorCompiler: FastifySchemaCompiler<AnySchema>
  serializerCompiler: FastifySerializerCompiler<AnySchema>
  /** Every schema the compilers were handed. */
  compiled: unknown[]
}

function resolveSchema(schema: unknown): ZodLike {
  if (typeof schema === 'object' && schema !== null) {
    if ('safeParse' in schema) return schema as ZodLike
    if ('properties' in schema) return (schema as { properties: ZodLike }).properties
  }
  throw new Error(`InvalidSchemaError: ${JSON.stringify(schema)}`)
}

/** A fresh pair of compilers (and the list of what they compiled). */
export function zodCompilers(): ZodCompilers {
  const compiled: unknown[] = []
  return {
    compiled,
    validatorCompiler: ({ schema }) => {
      compiled.push(schema)
      return (data) => {
        // As Zod's compiler: whatever it was given is called as a Zod schema.
        const result = (schema as ZodLike).safeParse(data)
        return result.success ? { value: result.data } : { error: result.error }
      }
    },
    serializerCompiler: ({ schema }) => {
      compiled.push(schema)
      return (data) => {
        const result = resolveSchema(schema).safeParse(data)
        if (!result.success) throw new Error('ResponseSerializationError')
        return JSON.stringify(result.data)
      }
    },
  }
}

/** Installs a fresh pair of Zod-like compilers on `app`, as such an app does; returns them. */
export function useZodCompilers(app: FastifyInstance): ZodCompilers {
  const zod = zodCompilers()
  app.setValidatorCompiler(zod.validatorCompiler)
  app.setSerializerCompiler(zod.serializerCompiler)
  return zod
}
