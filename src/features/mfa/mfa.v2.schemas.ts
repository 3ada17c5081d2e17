// Wire shapes of second factors: setting up TOTP, recovery codes, and the second step of a sign-in.
import { Type } from 'typebox'

import { AssertionCredential } from '../passkeys/index.js'

const TotpCode = Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code the authenticator app shows now' })
const RecoveryCode = Type.String({ minLength: 1, maxLength: 64, description: 'One of the recovery codes (case, spaces and dashes do not matter)' })
const MfaToken = Type.String({ minLength: 1, maxLength: 128, description: 'The `mfa_token` of the 401 `mfa_required` answer' })

/** A second factor a sign-in may ask for. */
export const SecondFactorMethod = Type.Union([Type.Literal('totp'), Type.Literal('recovery_code'), Type.Literal('passkey')])

export const TotpCodeBody = Type.Object({ code: TotpCode }, { additionalProperties: false, title: 'TotpCode' })

export const TotpOrRecoveryCodeBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64, description: 'A current TOTP code, or one of the recovery codes' }) },
  { additionalProperties: false, title: 'TotpOrRecoveryCode' },
)

export const TotpSetupRead = Type.Object(
  {
    secret: Type.String({ description: 'Base32, for typing into an app by hand' }),
    otpauth_url: Type.String({ description: 'The otpauth:// URL to show as a QR code' }),
    qr_code: Type.String({ description: 'That QR code, made by the service: an SVG data URL for an <img src>' }),
  },
  { title: 'TotpSetup' },
)

export const RecoveryCodesRead = Type.Object(
  { recovery_codes: Type.Array(Type.String(), { description: 'Ten single-use codes, shown this once; keep them apart from the device' }) },
  { title: 'RecoveryCodes' },
)

export const SecondFactorsRead = Type.Object(
  {
    totp: Type.Object({
      enabled: Type.Boolean({ description: 'A confirmed authenticator; a pending one does not count' }),
      confirmed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    }),
    recovery_codes_left: Type.Integer({ description: 'Unused recovery codes' }),
    passkeys: Type.Integer({ description: 'Registered passkeys; each also proves a second factor' }),
    methods: Type.Array(SecondFactorMethod, { description: 'What a sign-in asks for after the first factor; empty: no second factor' }),
  },
  { title: 'SecondFactors' },
)

export const SecondFactorLogin = Type.Union(
  [
    Type.Object({ mfa_token: MfaToken, code: TotpCode }, { additionalProperties: false }),
    Type.Object({ mfa_token: MfaToken, recovery_code: RecoveryCode }, { additionalProperties: false }),
    Type.Object({ mfa_token: MfaToken, passkey_response: AssertionCredential }, { additionalProperties: false }),
  ],
  { title: 'SecondFactorLogin', description: '`{mfa_token, code}`, `{mfa_token, recovery_code}` or `{mfa_token, passkey_response}` (the answer to POST /login/mfa/passkey/options)' },
)
