// One plain request to a bench server, outside the load: the probe of `run.mjs`, and the ETag
// a conditional workload sends.
import { request } from 'node:http'

/** One plain request, for the probe and for reading an ETag. */
export function probe(port, workload, extraHeaders = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: workload.method,
        path: workload.path,
        headers: {
          ...workload.headers,
          ...extraHeaders,
          ...(workload.body ? { 'content-length': Buffer.byteLength(workload.body) } : {}),
        },
      },
      (res) => {
        const chunks = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, bytes: Buffer.concat(chunks) }),
        )
      },
    )
    req.on('error', reject)
    req.end(workload.body)
  })
}
