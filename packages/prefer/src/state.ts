/** What a request prefers (RFC 7240 §4), read once, and what the answer honoured (§3). */
import { type Preferences, parsePrefer, waitSeconds } from './prefer.js'

/** A request's preferences, as its handler and the steps read them. */
export class RequestPreferences {
  /** Every preference of the request, by lower-case name (unknown ones included). */
  readonly all: Preferences
  /** `return`: `minimal` or `representation` (§4.2); undefined for none or another value. */
  readonly return: 'minimal' | 'representation' | undefined
  /** `respond-async` (§4.1). */
  readonly respondAsync: boolean
  /** `wait`, in seconds (§4.3). */
  readonly wait: number | undefined
  /** `handling`: `strict` or `lenient` (§4.4). */
  readonly handling: 'strict' | 'lenient' | undefined
  /** The preferences the answer honours, for `Preference-Applied` (§3), in the order applied. */
  readonly applied: Array<readonly [string, string | undefined]> = []

  constructor(field: unknown) {
    const all = parsePrefer(field)
    this.all = all
    const ret = all.get('return')?.value
    this.return = ret === 'minimal' || ret === 'representation' ? ret : undefined
    this.respondAsync = all.has('respond-async')
    this.wait = waitSeconds(all.get('wait'))
    const handling = all.get('handling')?.value
    this.handling = handling === 'strict' || handling === 'lenient' ? handling : undefined
  }

  /** Records that the answer honours `name` (with its value), once. */
  apply(name: string, value?: string): void {
    if (!this.applied.some(([applied]) => applied === name)) this.applied.push([name, value])
  }
}
