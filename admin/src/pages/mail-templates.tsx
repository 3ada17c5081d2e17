// Every mail the service sends, rendered with example values in any of its languages: the subject,
// the plain text and the HTML (in a sandboxed frame), with the language a recipient of that
// locale gets (its own, its language's, or the default).
import { useState } from 'preact/hooks'

import { call, client } from '../api.js'
import { Loading, useLoad } from '../components.js'
import type { Route } from '../router.js'
import { navigate } from '../router.js'

export function MailTemplates({ route }: { route: Route }) {
  const catalog = useLoad(() => call(() => client.GET('/api/v2/admin/mail-templates')), 'catalog')
  return (
    <>
      <h1>Mail templates</h1>
      <p class="muted">Each mail as it goes out, with example values. A recipient gets their own language, else its base language, else the default.</p>
      <Loading loaded={catalog}>
        {({ templates, locales }) => <Chooser route={route} templates={templates} locales={locales} />}
      </Loading>
    </>
  )
}

function Chooser({ route, templates, locales }: { route: Route; templates: string[]; locales: string[] }) {
  const name = templates.find((known) => known === route.query.get('name')) ?? templates[0]!
  const locale = route.query.get('locale') ?? locales[0]!
  const [fields, setFields] = useState({ name, locale })
  return (
    <>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault()
          navigate('/mail-templates', { name: fields.name, locale: fields.locale.trim() })
        }}
      >
        <div>
          <label for="template-name">Mail</label>
          <select id="template-name" value={fields.name} onChange={(event) => setFields({ ...fields, name: event.currentTarget.value })}>
            {templates.map((option) => (
              <option key={option} value={option}>
                {option.replace(/-/g, ' ')}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="template-locale">Language</label>
          <input id="template-locale" list="template-locales" value={fields.locale} onInput={(event) => setFields({ ...fields, locale: event.currentTarget.value })} />
          <datalist id="template-locales">
            {locales.map((option) => (
              <option key={option} value={option} />
            ))}
          </datalist>
        </div>
        <button type="submit" class="primary">
          Show
        </button>
      </form>
      <Preview key={`${name}|${locale}`} name={name} locale={locale} />
    </>
  )
}

function Preview({ name, locale }: { name: string; locale: string }) {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/mail-templates/{name}/preview', { params: { path: { name }, query: { locale } } })), `${name}|${locale}`)
  return (
    <Loading loaded={loaded}>
      {(mail) => (
        <article class="mail">
          <h2>{mail.subject}</h2>
          <p class="muted">
            Written in <strong>{mail.locale}</strong>
            {mail.locale === locale ? '' : ` (nearest to ${locale})`}
          </p>
          <h3>Text</h3>
          <p class="post-text">{mail.text}</p>
          <h3>HTML</h3>
          <iframe class="mail-html" title={`${mail.subject} (HTML)`} sandbox="" srcdoc={mail.html} />
        </article>
      )}
    </Loading>
  )
}
