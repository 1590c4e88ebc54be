/** HTTP/2 requests over a real session (`node:http2`'s client), for wire tests. */
import type { ClientHttp2Session, IncomingHttpHeaders } from 'node:http2'

/** An HTTP/2 answer: status, headers, and the body as UTF-8 text and as received. */
export interface Http2Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
  bytes: Buffer
}

/** Sends one request on `session` (`headers` with `:path`, `:method`…, then `body`, if any). */
export function http2Request(
  session: ClientHttp2Session,
  headers: Record<string, string>,
  body?: string,
): Promise<Http2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers)
    let head: IncomingHttpHeaders = {}
    const chunks: Buffer[] = []
    stream.on('response', (received) => {
      head = received
    })
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('end', () => {
      const bytes = Buffer.concat(chunks)
      resolve({ status: Number(head[':status']), headers: head, body: bytes.toString(), bytes })
    })
    stream.on('error', reject)
    stream.end(body)
  })
}
