// A login session's wire shape, for the caller's own list and the superusers' view of a user.
import type { Session } from './auth.service.js'

export const toSessionRead = (session: Session) => ({
  id: session.id,
  created_at: session.createdAt,
  last_used_at: session.lastUsedAt,
  user_agent: session.userAgent,
  ip: session.ip,
  current: session.current,
})
