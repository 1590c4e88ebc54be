/** What the steps and hooks of `@restwell/auth` read, made once per registration. */
import { formatChallenge } from './challenge.js'
import type { ResolvedAuthOptions } from './options.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/auth'

/** The settings of one registration: its options, and the challenge they make. */
export interface AuthSettings extends ResolvedAuthOptions {
  /** `WWW-Authenticate` without an error: what a request without credentials is sent. */
  readonly plainChallenge: string
  /** The headers of the 401 without credentials, made once. */
  readonly missingHeaders: { readonly 'www-authenticate': string }
}

/** The settings of a registration with `options`. */
export function authSettings(options: ResolvedAuthOptions): AuthSettings {
  const plainChallenge = formatChallenge({ realm: options.realm })
  return { ...options, plainChallenge, missingHeaders: { 'www-authenticate': plainChallenge } }
}
