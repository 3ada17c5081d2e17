// A user's second factors on their page: whether an authenticator is on, recovery codes left, and
// the superuser's reset (removes them and ends the user's sessions) for someone who lost both.
import { call, client } from '../api.js'
import { Confirmed, formatTime, Loading, useLoad } from '../components.js'

export function SecondFactors({ userId, round, onRemoved }: { userId: number; round: number; onRemoved: (message: string) => void }) {
  const path = { params: { path: { user_id: userId } } }
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/users/{user_id}/mfa', path)), `mfa-${userId}-${round}`)
  return (
    <Loading loaded={loaded}>
      {(factors) =>
        factors.methods.length > 0 ? (
          <>
            {factors.totp.enabled && (
              <p>
                Authenticator app (TOTP) since {formatTime(factors.totp.confirmed_at ?? '')}; {factors.recovery_codes_left} recovery codes left.
              </p>
            )}
            {factors.passkeys > 0 && <p>{factors.passkeys === 1 ? '1 passkey' : `${factors.passkeys} passkeys`}.</p>}
            <Confirmed
              label="Remove second factors"
              question="The authenticator app, recovery codes and passkeys go; the user signs in with a password or mailed link alone until they set up new ones, and every session of theirs ends now."
              run={() => call(() => client.DELETE('/api/v2/admin/users/{user_id}/mfa', path))}
              onDone={() => onRemoved('Second factors removed; the user\u2019s sessions ended')}
            />
          </>
        ) : (
          <p class="muted">No second factor.</p>
        )
      }
    </Loading>
  )
}
