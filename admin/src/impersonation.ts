// "View as": a support impersonation the console holds for one user at a time. Its token (with
// `act`, read-only or full, at most an hour, no refresh token) lives in this module's memory, as
// the console's own token does, and goes only through its own client; the console shows a banner
// for as long as it is held, and ending it (or its expiry) lets it go.
import { useEffect, useState } from 'preact/hooks'

import { createApiClient } from '../../clients/typescript/src/index.js'
import { call, callOnce, client } from './api.js'


interface Held {
  id: string
  token: string
  mode: 'read_only' | 'full'
  expiresAt: string
  user: { id: number; username: string; name: string }
}

let held: Held | undefined
const listeners = new Set<() => void>()
const changed = () => listeners.forEach((listener) => listener())

/** The API as the impersonated user: every call carries the impersonation's token. */
export const viewAsClient = createApiClient({ baseUrl: location.origin, accessToken: () => held?.token })

/** Opens a user's account to the signed-in superuser (their session must be fresh). */
export async function startViewAs(userId: number, body: { reason: string; mode: 'read_only' | 'full'; minutes: number }): Promise<void> {
  const started = await call(() => client.POST('/api/v2/admin/users/{user_id}/impersonate', { params: { path: { user_id: userId } }, body }))
  held = { id: started.impersonation_id, token: started.access_token, mode: started.mode, expiresAt: started.expires_at, user: started.user }
  changed()
}

/** Ends the impersonation the console holds, with its own token; it is let go whatever the service says. */
export async function endViewAs(): Promise<void> {
  if (!held) return
  try {
    await callOnce(() => viewAsClient.POST('/api/v2/admin/impersonation/end'))
  } finally {
    held = undefined
    changed()
  }
}

/** The impersonation held now (undefined once it expires), kept current as it changes. */
export function useViewAs(): Held | undefined {
  const [, setRound] = useState(0)
  useEffect(() => {
    const listener = () => setRound((round) => round + 1)
    listeners.add(listener)
    const expiry = held ? setTimeout(() => { held = undefined; changed() }, Math.max(0, Date.parse(held.expiresAt) - Date.now())) : undefined
    return () => {
      listeners.delete(listener)
      clearTimeout(expiry)
    }
  }, [held?.id])
  return held
}
