// The console's shell: resumes a session from the refresh cookie, or asks to sign in; then the
// navigation and the view the URL names.
import { useEffect, useState } from 'preact/hooks'

import { me, onSignedOut, resume, signOut } from './api.js'
import { useLoad } from './components.js'
import { endViewAs } from './impersonation.js'
import { Events } from './pages/events.js'
import { Mail } from './pages/mail.js'
import { MailTemplates } from './pages/mail-templates.js'
import { Orgs } from './pages/orgs.js'
import { Overview } from './pages/overview.js'
import { PostPage, Posts } from './pages/posts.js'
import { Reports } from './pages/reports.js'
import { SignIn } from './pages/sign-in.js'
import { Tiers } from './pages/tiers.js'
import { UserPage } from './pages/user.js'
import { Users } from './pages/users.js'
import { ViewAs, ViewAsBanner } from './pages/view-as.js'
import { Webhooks } from './pages/webhooks.js'
import type { Route } from './router.js'
import { href, useRoute } from './router.js'

type SessionState = 'resuming' | 'signed-out' | 'signed-in'

const SECTIONS = [
  ['', 'Overview'],
  ['users', 'Users'],
  ['orgs', 'Organizations'],
  ['posts', 'Posts'],
  ['reports', 'Reports'],
  ['tiers', 'Tiers'],
  ['events', 'Security events'],
  ['mail', 'Mail'],
  ['mail-templates', 'Mail templates'],
  ['webhooks', 'Webhooks'],
] as const

function View({ route }: { route: Route }) {
  const [section = '', id] = route.segments
  const recordId = id !== undefined && /^\d+$/.test(id) ? Number(id) : undefined
  switch (section) {
    case '':
      return <Overview />
    case 'users':
      return recordId === undefined ? <Users route={route} /> : <UserPage key={recordId} id={recordId} />
    case 'orgs':
      return <Orgs route={route} id={recordId} />
    case 'posts':
      return recordId === undefined ? <Posts route={route} /> : <PostPage key={recordId} id={recordId} />
    case 'reports':
      return <Reports route={route} />
    case 'tiers':
      return <Tiers />
    case 'events':
      return <Events route={route} />
    case 'mail':
      return <Mail route={route} />
    case 'mail-templates':
      return <MailTemplates route={route} />
    case 'webhooks':
      return <Webhooks route={route} id={recordId} />
    case 'view-as':
      return <ViewAs />
    default:
      return (
        <>
          <h1>Not found</h1>
          <p>
            There is no such page. <a href={href('/')}>Go to the overview</a>
          </p>
        </>
      )
  }
}

function Console({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute()
  const account = useLoad(me, 'me')
  const [section = ''] = route.segments
  useEffect(() => {
    const name = SECTIONS.find(([path]) => path === section)?.[1] ?? 'Admin'
    document.title = `${name} · Admin · user-post-service`
  }, [section])
  return (
    <>
      <a class="skip" href="#main" onClick={(event) => { event.preventDefault(); document.getElementById('main')?.focus() }}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">user-post-service admin</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map(([path, label]) => (
              <li key={path}>
                <a href={href(`/${path}`)} aria-current={section === path ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="account">
          {account.data && <span class="muted">{account.data.username}</span>}
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </span>
      </header>
      <ViewAsBanner />
      <main id="main" tabIndex={-1}>
        <View route={route} />
      </main>
    </>
  )
}

export function App() {
  const [state, setState] = useState<SessionState>('resuming')
  const [notice, setNotice] = useState<string>()
  useEffect(() => {
    onSignedOut(() => {
      setNotice('Your session ended. Sign in again.')
      setState('signed-out')
    })
    resume().then((resumed) => setState(resumed ? 'signed-in' : 'signed-out'))
  }, [])

  if (state === 'resuming') {
    return (
      <main class="sign-in">
        <p role="status">Loading…</p>
      </main>
    )
  }
  if (state === 'signed-out') {
    return (
      <SignIn
        notice={notice}
        onSignedIn={() => {
          setNotice(undefined)
          setState('signed-in')
        }}
      />
    )
  }
  return (
    <Console
      onSignOut={async () => {
        await endViewAs().catch(() => undefined)
        await signOut()
        setNotice('Signed out.')
        setState('signed-out')
      }}
    />
  )
}
