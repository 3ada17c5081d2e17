// Custom fields (CONTENT_SCHEMA) on a post, a user or an organization: shown and edited as JSON,
// because the console knows no deployment's declaration. The API checks every value against it
// and says which field is wrong.
import { useState } from 'preact/hooks'

import { ActionForm } from './components.js'

export type FieldValues = Record<string, unknown>

/** The record's custom fields, each as JSON. */
export function CustomFields({ fields }: { fields: FieldValues }) {
  const entries = Object.entries(fields)
  if (entries.length === 0) return <p class="muted">No custom fields.</p>
  return (
    <dl class="details">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>
            <code>{JSON.stringify(value)}</code>
          </dd>
        </div>
      ))}
    </dl>
  )
}

/**
 * The edit a JSON object makes to stored fields: what changed, with a field taken out of the JSON
 * sent as null (an edit merges fields); undefined when nothing changed.
 */
export function fieldChanges(stored: FieldValues, text: string): FieldValues | undefined {
  const parsed = JSON.parse(text.trim() === '' ? '{}' : text) as unknown
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('Custom fields must be a JSON object.')
  const changes: FieldValues = {}
  for (const [name, value] of Object.entries(parsed)) if (JSON.stringify(value) !== JSON.stringify(stored[name])) changes[name] = value
  for (const name of Object.keys(stored)) if (!(name in parsed)) changes[name] = null
  return Object.keys(changes).length > 0 ? changes : undefined
}

/** A form of one textarea that saves a record's custom fields through `save` (its PATCH with `{ fields }`). */
export function CustomFieldsEditor({ id, fields, save, onSaved }: { id: string; fields: FieldValues; save: (changes: FieldValues) => Promise<unknown>; onSaved: () => void }) {
  const [text, setText] = useState(JSON.stringify(fields, null, 2))
  return (
    <ActionForm
      label="Save custom fields"
      run={async () => {
        const changes = fieldChanges(fields, text)
        if (changes !== undefined) await save(changes)
      }}
      onDone={onSaved}
    >
      <p>
        <label for={id}>Custom fields (JSON)</label>
        <textarea id={id} rows={6} spellcheck={false} value={text} onInput={(event) => setText(event.currentTarget.value)} />
      </p>
    </ActionForm>
  )
}
