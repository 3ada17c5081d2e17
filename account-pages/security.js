// The account security page (/account/security): sign in with a password (then a second factor)
// or a passkey; register, rename and remove passkeys; set up TOTP from a QR code the service
// draws, see the recovery codes once, and turn TOTP off. Plain browser JavaScript against the v2
// API on the same origin; the access token lives in this page's memory, the refresh token in the
// HttpOnly cookie the API sets. WebAuthn's JSON forms (parseCreationOptionsFromJSON,
// parseRequestOptionsFromJSON, toJSON) carry the options and answers. A change the API refuses
// with 403 reauthentication_required opens "Confirm it is you" with the proofs the account can
// give; once confirmed, the person tries the change again.
const API = '/api/v2'
let accessToken
const $ = (id) => document.getElementById(id)

async function call(method, path, body) {
  const headers = body === undefined ? {} : { 'content-type': 'application/json' }
  if (accessToken) headers.authorization = `Bearer ${accessToken}`
  const response = await fetch(API + path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) })
  const data = response.status === 204 ? {} : await response.json().catch(() => ({}))
  if (!response.ok) throw Object.assign(new Error(data.detail ?? `The service answered ${response.status}`), { status: response.status, body: data })
  return data
}

function say(id, text, isError = false) {
  const element = $(id)
  element.textContent = text
  element.setAttribute('role', isError ? 'alert' : 'status')
}

const attempt = (id, run) => async (event) => {
  event?.preventDefault()
  say(id, '')
  try {
    await run()
  } catch (error) {
    if (error.body?.code === 'reauthentication_required') {
      askToReauthenticate(error.body.methods)
      say(id, 'Confirm it is you (above), then try again.', true)
      return
    }
    say(id, error.message, true)
  }
}

// The proofs the account can give, as forms made when asked for (and removed once given).
function askToReauthenticate(methods) {
  const proofs = $('reauthenticate-proofs')
  proofs.replaceChildren()
  const form = (label, input, submit) => {
    const element = document.createElement('form')
    const text = document.createElement('label')
    text.append(`${label} `, input)
    const button = Object.assign(document.createElement('button'), { type: 'submit', textContent: 'Confirm' })
    element.append(text, ' ', button)
    element.addEventListener('submit', attempt('reauthenticate-message', () => submit(input.value.trim())))
    proofs.append(element)
  }
  const field = (attributes) => Object.assign(document.createElement('input'), { required: true, ...attributes })
  if (methods.includes('password')) form('Your current password', field({ type: 'password', autocomplete: 'current-password' }), (password) => reauthenticated({ password }))
  if (methods.includes('totp')) {
    form('Code from your authenticator app, or a recovery code', field({ autocomplete: 'one-time-code', maxLength: 64 }), (code) => reauthenticated(/^\d{6}$/.test(code) ? { code } : { recovery_code: code }))
  }
  if (methods.includes('passkey')) {
    const button = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Confirm with a passkey' })
    button.addEventListener(
      'click',
      attempt('reauthenticate-message', async () => {
        const options = await call('POST', '/reauthenticate/passkey/options')
        await reauthenticated({ passkey_response: await getPasskey(options) })
      }),
    )
    proofs.append(button)
  }
  if (methods.includes('email_code')) {
    const send = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Mail me a code' })
    send.addEventListener(
      'click',
      attempt('reauthenticate-message', async () => {
        await call('POST', '/reauthenticate/email')
        say('reauthenticate-message', 'A code is on its way to your email address.')
      }),
    )
    proofs.append(send)
    form('Code from the mail', field({ inputMode: 'numeric', pattern: '[0-9]{6}' }), (code) => reauthenticated({ email_code: code }))
  }
  $('reauthenticate').hidden = false
  $('reauthenticate').scrollIntoView()
}

async function reauthenticated(proof) {
  await call('POST', '/reauthenticate', proof)
  $('reauthenticate-proofs').replaceChildren()
  say('reauthenticate-message', 'Confirmed: try the change again.')
}

async function createPasskey(options) {
  const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) })
  return credential.toJSON()
}

async function getPasskey(options) {
  const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) })
  return credential.toJSON()
}

let mfaToken

async function signedIn(tokens) {
  accessToken = tokens.access_token
  mfaToken = undefined
  $('signed-out').hidden = true
  $('second-factor').hidden = true
  $('signed-in').hidden = false
  const me = await call('GET', '/users/me')
  $('who').textContent = me.username
  await Promise.all([showPasskeys(), showTotp()])
}

async function firstFactor(run) {
  try {
    await signedIn(await run())
  } catch (error) {
    if (error.body?.code !== 'mfa_required') throw error
    mfaToken = error.body.mfa_token
    $('signed-out').hidden = true
    $('second-factor').hidden = false
    $('mfa-passkey').hidden = !error.body.methods.includes('passkey')
    $('mfa-code-form').hidden = !error.body.methods.includes('totp')
  }
}

$('password-form').addEventListener(
  'submit',
  attempt('sign-in-message', () => firstFactor(() => call('POST', '/login', { username: $('username').value, password: $('password').value }))),
)
$('passkey-sign-in').addEventListener(
  'click',
  attempt('sign-in-message', async () => {
    const options = await call('POST', '/login/passkey/options', {})
    await signedIn(await call('POST', '/login/passkey', { response: await getPasskey(options) }))
  }),
)
$('mfa-code-form').addEventListener(
  'submit',
  attempt('mfa-message', async () => {
    const code = $('mfa-code').value.trim()
    await signedIn(await call('POST', '/login/mfa', /^\d{6}$/.test(code) ? { mfa_token: mfaToken, code } : { mfa_token: mfaToken, recovery_code: code }))
  }),
)
$('mfa-passkey').addEventListener(
  'click',
  attempt('mfa-message', async () => {
    const options = await call('POST', '/login/mfa/passkey/options', { mfa_token: mfaToken })
    await signedIn(await call('POST', '/login/mfa', { mfa_token: mfaToken, passkey_response: await getPasskey(options) }))
  }),
)

async function showPasskeys() {
  const passkeys = await call('GET', '/users/me/passkeys')
  const list = $('passkeys')
  list.replaceChildren()
  for (const passkey of passkeys) {
    const item = document.createElement('li')
    const used = passkey.last_used_at ? `last used ${new Date(passkey.last_used_at).toLocaleString()}` : 'never used'
    item.append(`${passkey.name} (added ${new Date(passkey.created_at).toLocaleString()}, ${used}) `)
    const remove = document.createElement('button')
    remove.type = 'button'
    remove.textContent = `Remove ${passkey.name}`
    remove.addEventListener(
      'click',
      attempt('passkeys-message', async () => {
        await call('DELETE', `/users/me/passkeys/${passkey.id}`)
        say('passkeys-message', `Removed ${passkey.name}`)
        await showPasskeys()
      }),
    )
    item.append(remove)
    list.append(item)
  }
  $('no-passkeys').hidden = passkeys.length > 0
}

$('add-passkey-form').addEventListener(
  'submit',
  attempt('passkeys-message', async () => {
    const options = await call('POST', '/users/me/passkeys/options')
    const passkey = await call('POST', '/users/me/passkeys', { response: await createPasskey(options), name: $('passkey-name').value })
    say('passkeys-message', `Added ${passkey.name}`)
    await showPasskeys()
  }),
)

async function showTotp() {
  const factors = await call('GET', '/users/me/mfa')
  $('totp-on').hidden = !factors.totp.enabled
  $('totp-off').hidden = factors.totp.enabled
  $('totp-setup').hidden = true
  $('recovery-codes-left').textContent = String(factors.recovery_codes_left)
}

$('totp-start').addEventListener(
  'click',
  attempt('totp-message', async () => {
    const setup = await call('POST', '/users/me/mfa/totp')
    $('totp-qr').src = setup.qr_code
    $('totp-secret').textContent = setup.secret
    $('totp-setup').hidden = false
  }),
)
$('totp-confirm-form').addEventListener(
  'submit',
  attempt('totp-message', async () => {
    const { recovery_codes } = await call('POST', '/users/me/mfa/totp/confirm', { code: $('totp-code').value.trim() })
    await showTotp()
    const list = $('recovery-codes')
    list.replaceChildren(...recovery_codes.map((code) => Object.assign(document.createElement('li'), { textContent: code })))
    $('recovery-codes-shown').hidden = false
    say('totp-message', 'Authenticator app turned on. Keep these recovery codes somewhere safe: they are shown only now.')
  }),
)
$('totp-disable-form').addEventListener(
  'submit',
  attempt('totp-message', async () => {
    await call('DELETE', '/users/me/mfa/totp', { code: $('totp-disable-code').value.trim() })
    $('recovery-codes-shown').hidden = true
    await showTotp()
    say('totp-message', 'Authenticator app turned off')
  }),
)

$('sign-out').addEventListener(
  'click',
  attempt('sign-in-message', async () => {
    await call('POST', '/logout', {})
    accessToken = undefined
    $('signed-in').hidden = true
    $('signed-out').hidden = false
  }),
)

// A session this browser already has (the refresh cookie) signs the page in without asking.
call('POST', '/refresh', {})
  .then(signedIn)
  .catch(() => {
    $('signed-out').hidden = false
  })
