/**
 * The `Host` field (RFC 9112 §3.2): one field line whose value is `uri-host [ ":" port ]`
 * (RFC 3986 §3.2.2-3.2.3). A server must refuse, with a 400, a request with more than one Host
 * line or an invalid value; Node keeps the first line and passes any value through.
 */
import { isIPv6 } from 'node:net'

/** RFC 3986 unreserved and sub-delims, the characters of a reg-name besides `%XX`. */
const REG_NAME: Uint8Array = (() => {
  const table = new Uint8Array(128)
  for (const c of "-._~!$&'()*+,;=") table[c.charCodeAt(0)] = 1
  for (let c = 48; c <= 57; c++) table[c] = 1
  for (let c = 65; c <= 90; c++) table[c] = 1
  for (let c = 97; c <= 122; c++) table[c] = 1
  return table
})()

function isHexDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102)
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}

/** `*DIGIT` from `from` to the end. */
function isPort(value: string, from: number): boolean {
  for (let i = from; i < value.length; i++) if (!isDigit(value.charCodeAt(i))) return false
  return true
}

/** RFC 3986 IPvFuture: `"v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`. */
function isIpvFuture(text: string): boolean {
  if (text.charCodeAt(0) !== 0x76 && text.charCodeAt(0) !== 0x56) return false
  let i = 1
  while (i < text.length && isHexDigit(text.charCodeAt(i))) i++
  if (i === 1 || text.charCodeAt(i) !== 0x2e || i + 1 === text.length) return false
  for (let j = i + 1; j < text.length; j++) {
    const code = text.charCodeAt(j)
    if (code !== 0x3a && (code >= 128 || REG_NAME[code] !== 1)) return false
  }
  return true
}

/**
 * True when `value` is a valid Host field value: a reg-name (an IPv4 address is one), or an
 * IPv6 or IPvFuture literal in brackets, then an optional `:` and digits. The empty value is
 * valid (a target without authority, RFC 9112 §3.2). One pass, no regex.
 */
export function isValidHost(value: string): boolean {
  if (value.charCodeAt(0) === 0x5b) {
    const close = value.indexOf(']')
    if (close === -1) return false
    const literal = value.slice(1, close)
    // An IPv6 zone (`%eth0`) is not RFC 3986 syntax; node:net accepts it.
    const ok = literal.includes('%') ? false : isIPv6(literal) || isIpvFuture(literal)
    if (!ok) return false
    if (close + 1 === value.length) return true
    return value.charCodeAt(close + 1) === 0x3a && isPort(value, close + 2)
  }
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code === 0x3a) return isPort(value, i + 1)
    if (code === 0x25) {
      if (!isHexDigit(value.charCodeAt(i + 1)) || !isHexDigit(value.charCodeAt(i + 2))) return false
      i += 2
    } else if (code >= 128 || REG_NAME[code] !== 1) return false
  }
  return true
}

/** How many `Host` field lines a request's raw headers (name, value, name, value, …) hold. */
export function hostLines(rawHeaders: readonly string[]): number {
  let count = 0
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string
    if (name.length === 4 && (name === 'host' || name === 'Host' || name.toLowerCase() === 'host'))
      count++
  }
  return count
}
