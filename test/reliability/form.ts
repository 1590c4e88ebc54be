/**
 * What every error answer must look like: the configured form (`structured`) in the
 * representation negotiation chose for it (JSON and HAL carry the structured body as it is;
 * XML the same fields under `<error>`; JSON:API an `errors` array; Siren `properties`).
 * Returns the problems found (empty: the answer is well-formed).
 */
export interface Answer {
  statusCode: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/

function structuredProblems(fields: unknown, requestId: string | undefined): string[] {
  if (typeof fields !== 'object' || fields === null) return ['no error object']
  const f = fields as Record<string, unknown>
  const out: string[] = []
  if (typeof f.code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(f.code))
    out.push(`code ${String(f.code)}`)
  if (typeof f.message !== 'string' || f.message === '') out.push('message')
  if (!Array.isArray(f.details)) out.push('details')
  if (typeof f.requestId !== 'string' || f.requestId === '') out.push('requestId')
  else if (requestId !== undefined && f.requestId !== requestId)
    out.push('requestId differs from X-Request-Id')
  if (typeof f.timestamp !== 'string' || !ISO.test(f.timestamp)) out.push('timestamp')
  return out
}

function xmlText(xml: string, element: string): string | undefined {
  const open = xml.indexOf(`<${element}>`)
  if (open === -1) return undefined
  const close = xml.indexOf(`</${element}>`, open)
  return close === -1 ? undefined : xml.slice(open + element.length + 2, close)
}

export function errorFormProblems(res: Answer, method = 'GET'): string[] {
  if (res.statusCode < 400 || res.statusCode >= 500) return []
  const requestId = res.headers['x-request-id'] as string | undefined
  if (requestId === undefined) return ['no X-Request-Id']
  if (method === 'HEAD') return []
  const type = String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
  try {
    switch (type) {
      case 'application/json':
      case 'application/hal+json':
        return structuredProblems((JSON.parse(res.body) as { error?: unknown }).error, requestId)
      case 'application/xml': {
        if (!res.body.includes('<error>')) return ['no <error> root']
        const fields = {
          code: xmlText(res.body, 'code'),
          message: xmlText(res.body, 'message'),
          details: res.body.includes('<details') ? [] : undefined,
          requestId: xmlText(res.body, 'requestId'),
          timestamp: xmlText(res.body, 'timestamp'),
        }
        return structuredProblems(fields, requestId)
      }
      case 'application/vnd.api+json': {
        const errors = (JSON.parse(res.body) as { errors?: unknown }).errors
        if (!Array.isArray(errors) || errors.length === 0) return ['no errors array']
        return errors.flatMap((e: Record<string, unknown>) => {
          const meta = (e.meta ?? {}) as Record<string, unknown>
          const out: string[] = []
          if (e.status !== String(res.statusCode)) out.push('status')
          if (typeof e.code !== 'string') out.push('code')
          if (meta.requestId !== requestId) out.push('meta.requestId')
          return out
        })
      }
      case 'application/vnd.siren+json': {
        const body = JSON.parse(res.body) as { class?: unknown; properties?: unknown }
        return structuredProblems(body.properties, requestId)
      }
      default:
        return [`unexpected content type "${type}"`]
    }
  } catch (error) {
    return [`unparseable body: ${(error as Error).message}`]
  }
}
