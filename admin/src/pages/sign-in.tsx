// Sign in through the API's own login (username or email and password); only superusers get in.
import { useState } from 'preact/hooks'
import { signIn } from '../api.js'
import { ErrorMessage } from '../components.js'

export function SignIn({ onSignedIn, notice }: { onSignedIn: () => void; notice?: string }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      await signIn(username.trim(), password)
      onSignedIn()
    } catch (failure) {
      setError(failure)
      setPassword('')
    } finally {
      setBusy(false)
    }
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
