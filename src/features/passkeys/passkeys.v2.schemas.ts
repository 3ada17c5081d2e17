// Wire shapes of passkeys: the WebAuthn options the browser takes (as JSON, for
// PublicKeyCredential.parseCreationOptionsFromJSON and parseRequestOptionsFromJSON, or
// @simplewebauthn/browser), and the credential it answers with (PublicKeyCredential.toJSON()).
import { Type } from 'typebox'

const Base64Url = (description: string, maxLength = 4096) => Type.String({ pattern: '^[A-Za-z0-9_-]*$', minLength: 1, maxLength, description })

/** WebAuthn options as JSON: `challenge` (base64url), and the rest of the WebAuthn Level 3 JSON form. */
export const WebauthnOptions = Type.Object(
  { challenge: Type.String({ description: 'base64url; bound to this purpose server-side, single use, 5 minutes' }) },
  { additionalProperties: true, title: 'WebauthnOptions', description: "WebAuthn options in the JSON form of WebAuthn Level 3, for the browser's navigator.credentials" },
)

const ExtensionResults = Type.Object({}, { additionalProperties: true })

export const RegistrationCredential = Type.Object(
  {
    id: Base64Url('The credential id'),
    rawId: Base64Url('The credential id'),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: Base64Url('base64url', 8192),
        attestationObject: Base64Url('base64url', 16384),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 })),
      },
      { additionalProperties: true },
    ),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
    clientExtensionResults: ExtensionResults,
  },
  { additionalProperties: true, title: 'RegistrationCredential' },
)

export const AssertionCredential = Type.Object(
  {
    id: Base64Url('The credential id', 1400),
    rawId: Base64Url('The credential id', 1400),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: Base64Url('base64url', 8192),
        authenticatorData: Base64Url('base64url', 8192),
        // Post-quantum signatures (ML-DSA, which the library offers where the runtime has it) run to about 4.6 KB.
        signature: Base64Url('base64url', 8192),
        userHandle: Type.Optional(Type.String({ maxLength: 128 })),
      },
      { additionalProperties: true },
    ),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
    clientExtensionResults: ExtensionResults,
  },
  { additionalProperties: true, title: 'AssertionCredential' },
)

const PasskeyName = Type.String({ minLength: 1, maxLength: 100, description: 'For the person to recognise it ("MacBook Touch ID")' })

export const PasskeyRegistration = Type.Object({ response: RegistrationCredential, name: PasskeyName }, { additionalProperties: false, title: 'PasskeyRegistration' })
export const PasskeyRename = Type.Object({ name: PasskeyName }, { additionalProperties: false, title: 'PasskeyRename' })
export const PasskeySignInOptionsRequest = Type.Object(
  { username: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'Username or email; without it, any discoverable passkey' })) },
  { additionalProperties: false, title: 'PasskeySignInOptionsRequest' },
)
export const PasskeySignIn = Type.Object({ response: AssertionCredential }, { additionalProperties: false, title: 'PasskeySignIn' })
export const MfaPasskeyOptionsRequest = Type.Object({ mfa_token: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false, title: 'MfaPasskeyOptionsRequest' })

export const PasskeyRead = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    device_type: Type.String({ description: 'singleDevice, or multiDevice for a synced passkey' }),
    backed_up: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'PasskeyRead' },
)

export const PasskeyIdParams = Type.Object({ passkey_id: Type.String({ minLength: 1, maxLength: 36 }) })
