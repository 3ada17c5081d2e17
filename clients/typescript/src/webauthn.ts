// Passkey ceremonies: the service hands out WebAuthn options as JSON and takes the browser's
// answer as JSON (PublicKeyCredential.toJSON()). In a browser the client runs them with
// navigator.credentials and the WebAuthn Level 3 JSON helpers; elsewhere (React Native, tests),
// or with a library such as @simplewebauthn/browser, pass functions of your own.

/** Options as the service sends them (JSON), and the answer as the service takes it (JSON). */
export type WebauthnOptionsJSON = { challenge: string } & Record<string, unknown>
export type CredentialJSON = { id: string; rawId: string; type: 'public-key'; response: Record<string, unknown>; clientExtensionResults: object } & Record<string, unknown>

export interface PasskeyCeremonies {
  /** Creates a credential for creation options (a new passkey). */
  create(options: WebauthnOptionsJSON): Promise<CredentialJSON>
  /** Signs request options with a passkey (a sign-in, a second factor, a reauthentication). */
  get(options: WebauthnOptionsJSON): Promise<CredentialJSON>
}

interface BrowserCredential {
  toJSON(): CredentialJSON
}

interface BrowserWebauthn {
  navigator?: { credentials?: { create(options: object): Promise<BrowserCredential | null>; get(options: object): Promise<BrowserCredential | null> } }
  PublicKeyCredential?: { parseCreationOptionsFromJSON?(options: object): object; parseRequestOptionsFromJSON?(options: object): object }
}

/** The browser's own ceremonies (navigator.credentials); throws where there is none. */
export function browserCeremonies(): PasskeyCeremonies {
  const web = globalThis as BrowserWebauthn
  const credentials = web.navigator?.credentials
  const parse = web.PublicKeyCredential
  const missing = () => new Error('Passkeys need a browser with WebAuthn (navigator.credentials and PublicKeyCredential.parse…FromJSON), or ceremonies passed to the client')
  return {
    async create(options) {
      if (!credentials || !parse?.parseCreationOptionsFromJSON) throw missing()
      const credential = await credentials.create({ publicKey: parse.parseCreationOptionsFromJSON(options) })
      if (!credential) throw new Error('No passkey was created')
      return credential.toJSON()
    },
    async get(options) {
      if (!credentials || !parse?.parseRequestOptionsFromJSON) throw missing()
      const credential = await credentials.get({ publicKey: parse.parseRequestOptionsFromJSON(options) })
      if (!credential) throw new Error('No passkey answered')
      return credential.toJSON()
    },
  }
}
