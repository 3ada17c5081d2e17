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
  }
}

/** The account a door's request is about, when its body names one (a login name, an email address). */
export function subjectOf(door: Door, body: unknown): string | undefined {
  const fields = (body ?? {}) as Record<string, unknown>
  const named = door === 'login' ? fields.username : door === 'email-login' || door === 'password-reset' ? fields.email : undefined
  return typeof named === 'string' && named.trim() !== '' ? named.trim().toLowerCase() : undefined
}
