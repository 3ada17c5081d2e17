// A security event's wire shape.
import type { SecurityEvent } from './security-event.js'

export const toSecurityEventRead = (event: SecurityEvent) => ({
  id: event.id,
  user_id: event.userId,
  type: event.type,
  method: event.method,
  ip: event.ip,
  user_agent: event.userAgent,
  ...(event.postId === null ? {} : { post_id: event.postId }),
  ...(event.actorId === null ? {} : { actor_id: event.actorId }),
  ...(event.details === null ? {} : { details: event.details }),
  created_at: event.createdAt,
})
