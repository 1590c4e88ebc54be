/**
 * What a patch request carries: its route's settings and its parsed patch (request state), and
 * `request.applyPatch`, which applies it and checks the result.
 */
import { httpErrors } from '@restwell/errors'
import type { FastifyRequest } from 'fastify'
import type { ParsedPatch } from './augment.js'
import type { PatchFormat } from './content-type.js'
import { applyCompiled, type CompiledOperation, compileJsonPatch } from './json-patch.js'
import { isPlainObject } from './json.js'
import { checkMergePatch, mergePatch } from './merge-patch.js'
import { checkReadOnly, checkResult, type PatchSource } from './resource.js'
import { NAME } from './schema.js'
import type { RouteSettings } from './settings.js'

/** The parsed patch kept on the request: the public view and, for JSON Patch, its compiled form. */
export interface ParsedState {
  readonly view: ParsedPatch
  readonly compiled: readonly CompiledOperation[] | undefined
}

/** The settings of the patch route the request reached (set before its body is read). */
export const ROUTE: unique symbol = Symbol('restwell.patch.route')
/** The request's patch, once its body is parsed. */
export const PARSED: unique symbol = Symbol('restwell.patch.parsed')

/** A request as patch keeps its state on it. */
export interface PatchRequest {
  [ROUTE]?: RouteSettings
  [PARSED]?: ParsedState
}

/** Reads a patch document of `format`: checked whole, JSON Patch compiled; throws the 400/413. */
export function parsePatch(format: PatchFormat, body: unknown, maxOperations: number): ParsedState {
  if (format === 'merge-patch') {
    checkMergePatch(body)
    return { view: { format, document: body }, compiled: undefined }
  }
  if (Array.isArray(body) && body.length > maxOperations) {
    throw httpErrors.payloadTooLarge(
      `A JSON Patch document may hold at most ${maxOperations} operations`,
      { details: [{ field: 'body', message: `more than ${maxOperations} operations` }] },
    )
  }
  const compiled = compileJsonPatch(body)
  return { view: { format, operations: compiled.map((op) => op.source) }, compiled }
}

/** `request.patch`: the parsed patch, or null. */
export function parsedPatch(this: FastifyRequest): ParsedPatch | null {
  return (this as PatchRequest)[PARSED]?.view ?? null
}

/**
 * `request.applyPatch(current)`: the patched document, checked against the route's read-only
 * fields and schema; throws their 409/422.
 */
export function applyPatch<T>(this: FastifyRequest, current: T): T {
  const settings = (this as PatchRequest)[ROUTE]
  const parsed = (this as PatchRequest)[PARSED]
  if (settings === undefined || parsed === undefined) {
    throw new Error(`${NAME}: request.applyPatch() needs a patch route whose body has been parsed`)
  }
  let next: unknown
  let source: PatchSource
  if (parsed.compiled === undefined) {
    const document = (parsed.view as { document: unknown }).document
    next = mergePatch(current, document)
    source = { mergePatch: document }
  } else {
    next = applyCompiled(current, parsed.compiled)
    source = { operations: parsed.compiled }
  }
  const validate = settings.validator?.()
  // A result that is not an object replaced the whole document (RFC 7396 §2): what is wrong
  // with it as a document is said before any field it lost.
  const replaced = !isPlainObject(next)
  if (replaced && validate !== undefined) checkResult(validate, next)
  checkReadOnly(current, next, settings.readOnly, source)
  if (!replaced && validate !== undefined) checkResult(validate, next)
  return next as T
}
