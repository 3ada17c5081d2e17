// Sign in through the API's own login (username or email and password, then a code from the
// authenticator app or a recovery code when the account has a second factor); only superusers get in.
import { useState } from 'preact/hooks'

import type { SecondFactorDue } from '../api.js'
import { ApiError, finishSignIn, finishSignInWithPasskey, signIn, signInWithPasskey } from '../api.js'
import { ActionButton } from '../components.js'
import { ErrorMessage, useAction } from '../components.js'

/** A form's submit handler that runs the step's action instead of navigating. */
const submitWith = (start: () => Promise<void>) => (event: Event) => {
  event.preventDefault()
  void start()
}

function PasswordStep({ onDone }: { onDone: (due: SecondFactorDue | undefined) => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const { busy, error, start } = useAction(async () => {
    try {
      return await signIn(username.trim(), password)
    } catch (failure) {
      setPassword('')
      throw failure
    }
  }, onDone)

  const submit = submitWith(start)

  return (
    <form onSubmit={submit}>
      <label for="username">Username or email</label>
      <input id="username" name="username" autocomplete="username" required value={username} onInput={(event) => setUsername(event.currentTarget.value)} />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
      <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <ErrorMessage error={error} />
    </form>
  )
}

function CodeStep({ due, onDone, onExpired }: { due: SecondFactorDue; onDone: () => void; onExpired: () => void }) {
  const [code, setCode] = useState('')
  const { busy, error, start } = useAction(async () => {
    try {
      await finishSignIn(due, code)
    } catch (failure) {
      setCode('')
      // Five wrong codes or five minutes end the sign-in: start again from the password.
      if (failure instanceof ApiError && failure.code === 'invalid_mfa_token') onExpired()
      throw failure
    }
  }, onDone)

  const submit = submitWith(start)

  return (
    <>
      {due.methods.includes('totp') && (
        <form onSubmit={submit}>
          <label for="code">Code from your authenticator app, or a recovery code</label>
          <input id="code" name="code" autocomplete="one-time-code" inputMode="text" required value={code} onInput={(event) => setCode(event.currentTarget.value)} />
          <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
            {busy ? 'Checking…' : 'Continue'}
          </button>
          <ErrorMessage error={error} />
        </form>
      )}
      {due.methods.includes('passkey') && <ActionButton label="Use a passkey" busyLabel="Waiting for the passkey…" run={() => finishSignInWithPasskey(due)} onDone={onDone} />}
    </>
  )
}

export function SignIn({ onSignedIn, notice }: { onSignedIn: () => void; notice?: string }) {
  const [due, setDue] = useState<SecondFactorDue>()
  const [restarted, setRestarted] = useState(false)
  const expired = () => {
    setDue(undefined)
    setRestarted(true)
  }
  const shown = restarted ? 'That sign-in has ended. Enter your password again.' : notice
  return (
    <main class="sign-in">
      <h1>Admin console</h1>
      <p class="muted">{due ? 'This account has a second factor.' : 'Sign in with a superuser account.'}</p>
      {shown && <p class="notice">{shown}</p>}
      {due ? (
        <CodeStep due={due} onDone={onSignedIn} onExpired={expired} />
      ) : (
        <>
          <PasswordStep onDone={(next) => (next ? setDue(next) : onSignedIn())} />
          <p>
            <ActionButton label="Sign in with a passkey" busyLabel="Waiting for the passkey…" kind="plain" run={signInWithPasskey} onDone={onSignedIn} />
          </p>
        </>
      )}
    </main>
  )
}
