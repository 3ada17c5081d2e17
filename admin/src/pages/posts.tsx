// Posts: search, author, visibility and status filters, a post's page with its custom fields, an
// editor (title, text, visibility, custom fields), soft and permanent deletion. The console's superuser sees every post; reading one no rule opens to them is
// recorded in the security log (docs/api.md "Who reads a post").
import { useState } from 'preact/hooks'

import { call, client } from '../api.js'
import { ActionForm, Confirmed, formatTime, Loading, Notice, pageOf, Pager, TableFrame, useLoad } from '../components.js'
import type { FieldValues } from '../custom-fields.js'
import { CustomFields, fieldChanges } from '../custom-fields.js'
import type { Route } from '../router.js'
import { href, navigate } from '../router.js'

const PAGE_SIZE = 20
const VISIBILITIES = ['public', 'unlisted', 'org', 'private'] as const
const STATUSES = ['published', 'scheduled', 'draft'] as const
type Visibility = (typeof VISIBILITIES)[number]
type Status = (typeof STATUSES)[number]
const oneOf = <T extends string>(values: readonly T[], value: string | null): T | undefined => values.find((known) => known === value)

export function Posts({ route }: { route: Route }) {
  const search = route.query.get('search') ?? ''
  const author = route.query.get('author_id') ?? ''
  const authorId = /^\d+$/.test(author) ? Number(author) : undefined
  const visibility: Visibility | undefined = oneOf(VISIBILITIES, route.query.get('visibility'))
  const status: Status | undefined = oneOf(STATUSES, route.query.get('status'))
  const page = pageOf(route.query)
  const [fields, setFields] = useState({ search, author, visibility: visibility ?? '', status: status ?? '' })
  const loaded = useLoad(
    () => call(() => client.GET('/api/v2/posts', { params: { query: { search: search || undefined, author_id: authorId, visibility, status, page, limit: PAGE_SIZE } } })),
    `${search}|${authorId}|${visibility}|${status}|${page}`,
  )
  return (
    <>
      <h1>Posts</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault()
          navigate('/posts', { search: fields.search.trim(), author_id: fields.author.trim(), visibility: fields.visibility, status: fields.status })
        }}
      >
        <div>
          <label for="post-search">Search posts</label>
          <input id="post-search" type="search" maxLength={50} placeholder="Title or text" value={fields.search} onInput={(event) => setFields({ ...fields, search: event.currentTarget.value })} />
        </div>
        <div>
          <label for="post-author">Author ID</label>
          <input id="post-author" inputMode="numeric" pattern="[0-9]*" value={fields.author} onInput={(event) => setFields({ ...fields, author: event.currentTarget.value })} />
        </div>
        <AnyOf id="post-visibility" label="Visibility" values={VISIBILITIES} value={fields.visibility} onChange={(value) => setFields({ ...fields, visibility: value })} />
        <AnyOf id="post-status" label="Status" values={STATUSES} value={fields.status} onChange={(value) => setFields({ ...fields, status: value })} />
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <Loading loaded={loaded}>
        {(found) => (
          <>
            <TableFrame label="Posts">
              <thead>
                <tr>
                  <th scope="col">ID</th>
                  <th scope="col">Title</th>
                  <th scope="col">Author</th>
                  <th scope="col">Visibility</th>
                  <th scope="col">Status</th>
                  <th scope="col">Written</th>
                </tr>
              </thead>
              <tbody>
                {found.data.map((post) => (
                  <tr key={post.id}>
                    <td>{post.id}</td>
                    <td class="wrap">
                      <a href={href(`/posts/${post.id}`)}>{post.title}</a>
                    </td>
                    <td>
                      <a href={href(`/users/${post.author_id}`)}>User {post.author_id}</a>
                    </td>
                    <td>
                      {post.visibility}
                      {post.org_id !== null && <> (org {post.org_id})</>}
                    </td>
                    <td>{post.status}</td>
                    <td>{formatTime(post.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </TableFrame>
            {found.data.length === 0 && <p class="muted">No post matches.</p>}
            <Pager page={page} pageSize={PAGE_SIZE} total={found.total_count} to={(next) => href('/posts', { search, author_id: authorId, visibility, status, page: next })} />
          </>
        )}
      </Loading>
    </>
  )
}

/** A filter that is one of `values`, or any. */
function AnyOf({ id, label, values, value, onChange }: { id: string; label: string; values: readonly string[]; value: string; onChange: (value: string) => void }) {
  return (
    <div>
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="">Any</option>
        {values.map((known) => (
          <option key={known} value={known}>
            {known}
          </option>
        ))}
      </select>
    </div>
  )
}

/** The post's threads, newest first, each with its first replies; a superuser hides or removes any. */
function PostComments({ id }: { id: number }) {
  const [version, setVersion] = useState(0)
  const [done, setDone] = useState<string>()
  const loaded = useLoad(() => call(() => client.GET('/api/v2/posts/{post_id}/comments', { params: { path: { post_id: id }, query: { order: 'newest', limit: 50 } } })), `comments-${id}-${version}`)
  const changed = (message: string) => {
    setDone(message)
    setVersion(version + 1)
  }
  return (
    <section>
      <h2>Comments</h2>
      {done && <Notice text={done} />}
      <Loading loaded={loaded}>
        {(found) => (
          <>
            <p class="muted">{found.total_count.toLocaleString()} threads, newest first{found.has_more ? ' (the first 50)' : ''}</p>
            <ul class="comments">
              {found.data.flatMap((thread) => [thread, ...thread.replies]).map((comment) => (
                <li key={comment.id} class={comment.parent_id === null ? undefined : 'reply'}>
                  <p>
                    <strong>{comment.author_id === null ? 'Nobody' : <a href={href(`/users/${comment.author_id}`)}>User {comment.author_id}</a>}</strong>{' '}
                    <span class="muted">
                      {formatTime(comment.created_at)}, {comment.status}
                      {comment.hidden_reason && <> ({comment.hidden_reason})</>}
                      {comment.parent_id === null && <>, {comment.reply_count} replies</>}
                    </span>
                  </p>
                  {comment.text !== null && <div class="post-text">{comment.text}</div>}
                  {comment.status === 'visible' && (
                    <div class="actions">
                      <Confirmed
                        label={`Hide comment ${comment.id}`}
                        question="Hide this comment? Its author sees why: hidden from the admin console."
                        run={() => call(() => client.POST('/api/v2/comments/{comment_id}/hide', { params: { path: { comment_id: comment.id } }, body: { reason: 'Hidden from the admin console' } }))}
                        onDone={() => changed(`Comment ${comment.id} hidden`)}
                      />
                      <Confirmed
                        label={`Remove comment ${comment.id}`}
                        question="Remove this comment? Its words are erased; its place in the thread stays."
                        run={() => call(() => client.DELETE('/api/v2/comments/{comment_id}', { params: { path: { comment_id: comment.id } } }))}
                        onDone={() => changed(`Comment ${comment.id} removed`)}
                      />
                    </div>
                  )}
                </li>
              ))}
            </ul>
          </>
        )}
      </Loading>
    </section>
  )
}

interface EditablePost {
  id: number
  title: string
  text: string
  visibility: Visibility
  fields: FieldValues
}

/** The edit a form makes: what changed, with a field taken out of the JSON sent as null (an edit merges fields). */
function postChanges(post: EditablePost, form: { title: string; text: string; visibility: Visibility; fields: string }) {
  const body: { title?: string; text?: string; visibility?: Visibility; fields?: FieldValues } = {}
  if (form.title !== post.title) body.title = form.title
  if (form.text !== post.text) body.text = form.text
  if (form.visibility !== post.visibility) body.visibility = form.visibility
  const fields = fieldChanges(post.fields, form.fields)
  if (fields !== undefined) body.fields = fields
  return body
}

function PostEditor({ post, onSaved }: { post: EditablePost; onSaved: () => void }) {
  const [form, setForm] = useState({ title: post.title, text: post.text, visibility: post.visibility, fields: JSON.stringify(post.fields, null, 2) })
  const set = (key: keyof typeof form) => (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement }) => setForm({ ...form, [key]: event.currentTarget.value })
  return (
    <section>
      <h2>Edit</h2>
      <ActionForm
        label="Save post"
        // The API checks every value against the deployment's declaration and says which field is wrong.
        // The console's types know no declared field, hence the cast of `fields`.
        run={() => call(() => client.PATCH('/api/v2/posts/{post_id}', { params: { path: { post_id: post.id } }, body: postChanges(post, form) as never }))}
        onDone={onSaved}
      >
        <p>
          <label for="post-title">Title</label>
          <input id="post-title" maxLength={100} value={form.title} onInput={set('title')} />
        </p>
        <p>
          <label for="post-text">Text</label>
          <textarea id="post-text" rows={8} value={form.text} onInput={set('text')} />
        </p>
        <p>
          <label for="post-edit-visibility">Visibility</label>
          <select id="post-edit-visibility" value={form.visibility} onChange={set('visibility')}>
            {VISIBILITIES.map((known) => (
              <option key={known} value={known}>
                {known}
              </option>
            ))}
          </select>
        </p>
        <p>
          <label for="post-fields">Custom fields (JSON)</label>
          <textarea id="post-fields" rows={6} spellcheck={false} value={form.fields} onInput={set('fields')} />
        </p>
      </ActionForm>
    </section>
  )
}

export function PostPage({ id }: { id: number }) {
  const [version, setVersion] = useState(0)
  const [saved, setSaved] = useState<string>()
  const loaded = useLoad(() => call(() => client.GET('/api/v2/posts/{post_id}', { params: { path: { post_id: id } } })), `post-${id}-${version}`)
  const [gone, setGone] = useState<string>()
  const path = { params: { path: { post_id: id } } }
  if (gone) {
    return (
      <>
        <Notice text={gone} />
        <p>
          <a href={href('/posts')}>← Posts</a>
        </p>
      </>
    )
  }
  return (
    <>
      <p>
        <a href={href('/posts')}>← Posts</a>
      </p>
      <Loading loaded={loaded}>
        {(post) => (
          <article>
            <h1>{post.title}</h1>
            <p class="muted">
              Post {post.id} by <a href={href(`/users/${post.author_id}`)}>user {post.author_id}</a>, written {formatTime(post.created_at)}, updated {formatTime(post.updated_at)}; {post.visibility}
              {post.org_id !== null && <> in organization {post.org_id}</>}, {post.status}
            </p>
            {saved && <Notice text={saved} />}
            <div class="post-text">{post.text}</div>
            <section>
              <h2>Custom fields</h2>
              <CustomFields fields={post.fields as FieldValues} />
            </section>
            <PostEditor
              key={post.updated_at}
              post={{ ...post, fields: post.fields as FieldValues }}
              onSaved={() => {
                setSaved(`Post ${id} saved`)
                setVersion(version + 1)
              }}
            />
            {post.media_url && (
              <p>
                Media: <a href={post.media_url} rel="noopener noreferrer" target="_blank">{post.media_url}</a>
              </p>
            )}
            <PostComments id={id} />
            <section>
              <h2>Actions</h2>
              <div class="actions">
                <Confirmed
                  label="Soft delete"
                  question="Soft-delete this post? It disappears from every read."
                  run={() => call(() => client.DELETE('/api/v2/posts/{post_id}', path))}
                  onDone={() => setGone(`Post ${id} soft-deleted`)}
                />
                <Confirmed
                  label="Delete permanently"
                  question="Remove this post from the database? This cannot be undone."
                  phrase="delete"
                  run={() => call(() => client.DELETE('/api/v2/posts/{post_id}/permanent', path))}
                  onDone={() => setGone(`Post ${id} removed from the database`)}
                />
              </div>
            </section>
          </article>
        )}
      </Loading>
    </>
  )
}
