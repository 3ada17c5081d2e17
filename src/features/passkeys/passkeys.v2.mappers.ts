import type { Passkey } from './passkeys.service.js'

export const toPasskeyRead = (passkey: Passkey) => ({
  id: passkey.id,
  name: passkey.name,
  device_type: passkey.deviceType,
  backed_up: passkey.backedUp,
  created_at: passkey.createdAt,
  last_used_at: passkey.lastUsedAt,
})
