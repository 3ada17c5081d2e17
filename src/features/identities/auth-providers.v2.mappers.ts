// A linked identity's wire shape.
import type { Identity } from './identities.service.js'

export const toIdentityRead = (identity: Identity) => ({ id: identity.id, provider: identity.provider, email: identity.email, created_at: identity.createdAt })
