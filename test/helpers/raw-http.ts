/** A raw HTTP/1.1 GET over a socket: the request target exactly as given (fetch and inject would
 * normalise or percent-encode it first). Resolves with the whole response text. */
import { connect } from 'node:net'

export function rawGet(port: number, target: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    )
    let data = ''
    socket.on('data', (chunk) => {
      data += chunk
    })
    socket.on('end', () => resolve(data))
    socket.on('error', reject)
  })
}
