// The doors: routes where anyone can make the service create an account, check a password or send
// mail, and so where bots knock. Every route a caller without credentials can send a change to
// names its door, or `exempt` (the app refuses to start otherwise: src/app.ts), so a route added
// next year is classified before it ships.
export const DOORS = ['signup', 'login', 'email-login', 'password-reset', 'invitation'] as const
export type Door = (typeof DOORS)[number]

/** What a route declares: its door, or that it is none (a confirmation, a refresh, a token exchange, a second step). */
export type DoorMark = Door | 'exempt'

declare module 'fastify' {
  interface FastifyContextConfig {
    door?: DoorMark
    /**
     * The body field that names the account the request is about (a login name, an email): the
     * CAPTCHA's risk, its failure counts and the known-device rule follow that account. Every
     * `login` door (one that checks a password) must name it, and it must be a field of its body.
     */
    accountField?: string
  }
}

/** The doors that check an account's password: each names its account field (src/app.ts refuses one that does not). */
export const PASSWORD_DOORS: readonly Door[] = ['login']

/** The account a door's request is about, from the body field the route names (`accountField`). */
export function subjectOf(accountField: string | undefined, body: unknown): string | undefined {
  if (accountField === undefined) return undefined
  const named = ((body ?? {}) as Record<string, unknown>)[accountField]
  return typeof named === 'string' && named.trim() !== '' ? named.trim().toLowerCase() : undefined
}
