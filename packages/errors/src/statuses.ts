/** The 4xx and 5xx statuses of the spec (part 7.2), each with its reason phrase and default machine code. */

/** Status code → reason phrase, for every client and server error the spec lists. */
export const ERROR_STATUSES = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  418: "I'm a Teapot",
  421: 'Misdirected Request',
  422: 'Unprocessable Entity',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
  506: 'Variant Also Negotiates',
  507: 'Insufficient Storage',
  508: 'Loop Detected',
  510: 'Not Extended',
  511: 'Network Authentication Required',
} as const

export type ErrorStatus = keyof typeof ERROR_STATUSES

/** The reason phrase of a status, or a generic one for a status outside the table. */
export function reasonPhrase(status: number): string {
  const phrase = (ERROR_STATUSES as Record<number, string>)[status]
  if (phrase !== undefined) return phrase
  return status >= 500 ? 'Server Error' : 'Client Error'
}

/** `Not Found` → `NOT_FOUND`, `I'm a Teapot` → `IM_A_TEAPOT`: the default machine code of a status. */
export function statusCode(status: number): string {
  return reasonPhrase(status)
    .replace(/'/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase()
}
