// Auth query builders that are also prepared (auth.prepared.ts); auth.repository.ts runs them.
import type { Executor } from '../../db/schema.js'

export function revokedTokenQuery(db: Executor, jti: string) {
  return db.selectFrom('revoked_tokens').select('jti').where('jti', '=', jti)
}
