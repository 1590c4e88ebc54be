/** ISO 8601 durations (`PT30S`, `PT1M30S`, `P1DT2H`) for `estimatedTime`. */

/** The ISO 8601 duration subset we accept: days, hours, minutes, seconds (fraction allowed). */
const DURATION = /^P(?:\d{1,9}D)?(?:T(?:\d{1,9}H)?(?:\d{1,9}M)?(?:\d{1,9}(?:\.\d{1,3})?S)?)?$/

/** True for a duration like `PT30S` or `P1DT2H` (at least one component, `T` not empty). */
export function isDuration(value: string): boolean {
  return value !== 'P' && !value.endsWith('T') && DURATION.test(value)
}

/** Seconds → the shortest ISO 8601 duration: 90 → `PT1M30S`, 0 → `PT0S`, 86400 → `P1D`. */
export function formatDuration(seconds: number): string {
  let rest = Math.max(0, Math.round(seconds))
  const days = Math.floor(rest / 86_400)
  rest -= days * 86_400
  const hours = Math.floor(rest / 3600)
  rest -= hours * 3600
  const minutes = Math.floor(rest / 60)
  const secs = rest - minutes * 60
  let time = ''
  if (hours > 0) time += `${hours}H`
  if (minutes > 0) time += `${minutes}M`
  if (secs > 0) time += `${secs}S`
  if (days === 0 && time === '') return 'PT0S'
  return `P${days > 0 ? `${days}D` : ''}${time === '' ? '' : `T${time}`}`
}

/** A number of seconds or an ISO 8601 duration string, as an ISO 8601 duration string. */
export function toDuration(value: number | string): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) {
      throw new TypeError(`estimatedTime must be a non-negative number of seconds, got ${value}`)
    }
    return formatDuration(value)
  }
  if (!isDuration(value)) {
    throw new TypeError(
      `estimatedTime must be an ISO 8601 duration like PT30S, got ${JSON.stringify(value)}`,
    )
  }
  return value
}
