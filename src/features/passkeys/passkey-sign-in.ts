// Signing in with a passkey, as the auth slice asks of every method (SignInMethod): counted
// against the address's login budget, and a whole sign-in (the passkey verified its user), so no
// second factor follows.
import type { LoginThrottle, PasskeyResponse, SignInMethod } from '../auth/index.js'
import type { PasskeyService } from './passkeys.service.js'

export function passkeySignIn(passkeys: PasskeyService, throttle: LoginThrottle): SignInMethod<PasskeyResponse> {
  return {
    name: 'passkey',
    proves: 'passkey',
    complete: true,
    async verify(response, client) {
      await throttle.countPasskey(client.ip ?? '')
      return passkeys.verifySignIn(response, client)
    },
  }
}
