import type { SecondFactorStatus } from './second-factors.service.js'

export const toSecondFactorsRead = (status: SecondFactorStatus) => ({
  totp: { enabled: status.totpConfirmedAt !== null, confirmed_at: status.totpConfirmedAt },
  recovery_codes_left: status.recoveryCodesLeft,
  passkeys: status.passkeys,
  methods: status.methods,
})
