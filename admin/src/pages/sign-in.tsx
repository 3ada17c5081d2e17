// Sign in through the API's own login (username or email and password); only superusers get in.
import { useState } from 'preact/hooks'

import { signIn } from '../api.js'
import { ErrorMessage, useAction } from '../components.js'

export function SignIn({ onSignedIn, notice }: { onSignedIn: () => void; notice?: string }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const { busy, error, start } = useAction(async () => {
    try {
      await signIn(username.trim(), password)
    } catch (failure) {
      setPassword('')
      throw failure
    }
  }, onSignedIn)

  const submit = (event: Event) => {
    event.preventDefault()
    void start()
  }

  return (
    <main class="sign-in">
      <h1>Admin console</h1>
      <p class="muted">Sign in with a superuser account.</p>
      {notice && <p class="notice">{notice}</p>}
      <form onSubmit={submit}>
        <label for="username">Username or email</label>
        <input id="username" name="username" autocomplete="username" required value={username} onInput={(event) => setUsername(event.currentTarget.value)} />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorMessage error={error} />
      </form>
    </main>
  )
}
