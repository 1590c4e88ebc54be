/** The two patch media types (RFC 6902 §6, RFC 7396 §4), read from Content-Type. */
import { isOws } from '@restwell/core/internal'

/** A patch document format. */
export type PatchFormat = 'json-patch' | 'merge-patch'

/** The media type of each format. */
export const PATCH_MEDIA_TYPES: Readonly<Record<PatchFormat, string>> = {
  'json-patch': 'application/json-patch+json',
  'merge-patch': 'application/merge-patch+json',
}

/** Both formats, in the order `Accept-Patch` lists them. */
export const PATCH_FORMATS: readonly PatchFormat[] = ['json-patch', 'merge-patch']

/** Longest Content-Type value looked at; a media type longer than this matches nothing. */
const MAX_CONTENT_TYPE = 1024

/**
 * The patch format a Content-Type names (RFC 9110 §8.3: `type/subtype` case-insensitive,
 * parameters ignored), or `undefined`. Never throws; linear in the header's length.
 */
export function patchFormatOf(contentType: string | undefined): PatchFormat | undefined {
  if (typeof contentType !== 'string' || contentType.length > MAX_CONTENT_TYPE) return undefined
  const semicolon = contentType.indexOf(';')
  let end = semicolon === -1 ? contentType.length : semicolon
  let start = 0
  while (start < end && isOws(contentType.charCodeAt(start))) start++
  while (end > start && isOws(contentType.charCodeAt(end - 1))) end--
  const type = contentType.slice(start, end).toLowerCase()
  for (const format of PATCH_FORMATS) if (PATCH_MEDIA_TYPES[format] === type) return format
  return undefined
}

/** The `Accept-Patch` value (RFC 5789 §3.1) listing the given formats' media types. */
export function acceptPatchValue(formats: readonly PatchFormat[]): string {
  return PATCH_FORMATS.filter((format) => formats.includes(format))
    .map((format) => PATCH_MEDIA_TYPES[format])
    .join(', ')
}

/** A set of formats as bits: bit i is `PATCH_FORMATS[i]`. */
export function formatMask(formats: readonly PatchFormat[]): number {
  let mask = 0
  PATCH_FORMATS.forEach((format, i) => {
    if (formats.includes(format)) mask |= 1 << i
  })
  return mask
}

/** Each mask's formats, in `PATCH_FORMATS` order. */
export const FORMATS_BY_MASK: readonly (readonly PatchFormat[])[] = Array.from(
  { length: 1 << PATCH_FORMATS.length },
  (_, mask) => PATCH_FORMATS.filter((_format, i) => (mask & (1 << i)) !== 0),
)

/** Each mask's `Accept-Patch` value; undefined for no format. */
export const ACCEPT_PATCH_BY_MASK: readonly (string | undefined)[] = FORMATS_BY_MASK.map(
  (formats) => (formats.length === 0 ? undefined : acceptPatchValue(formats)),
)
