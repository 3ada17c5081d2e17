// Posts: search and author filter, a post's page, soft and permanent deletion.
import { useState } from 'preact/hooks'

import { call, client } from '../api.js'
import { Confirmed, formatTime, Loading, Notice, pageOf, Pager, TableFrame, useLoad } from '../components.js'
import type { Route } from '../router.js'
import { href, navigate } from '../router.js'

const PAGE_SIZE = 20

export function Posts({ route }: { route: Route }) {
  const search = route.query.get('search') ?? ''
  const author = route.query.get('author_id') ?? ''
  const authorId = /^\d+$/.test(author) ? Number(author) : undefined
  const page = pageOf(route.query)
  const [fields, setFields] = useState({ search, author })
  const loaded = useLoad(
    () => call(() => client.GET('/api/v2/posts', { params: { query: { search: search || undefined, author_id: authorId, page, limit: PAGE_SIZE } } })),
    `${search}|${authorId}|${page}`,
  )
  return (
    <>
      <h1>Posts</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault()
          navigate('/posts', { search: fields.search.trim(), author_id: fields.author.trim() })
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
                    <td>{formatTime(post.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </TableFrame>
            {found.data.length === 0 && <p class="muted">No post matches.</p>}
            <Pager page={page} pageSize={PAGE_SIZE} total={found.total_count} to={(next) => href('/posts', { search, author_id: authorId, page: next })} />
          </>
        )}
      </Loading>
    </>
  )
}

export function PostPage({ id }: { id: number }) {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/posts/{post_id}', { params: { path: { post_id: id } } })), `post-${id}`)
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
              Post {post.id} by <a href={href(`/users/${post.author_id}`)}>user {post.author_id}</a>, written {formatTime(post.created_at)}, updated {formatTime(post.updated_at)}
            </p>
            <div class="post-text">{post.text}</div>
            {post.media_url && (
              <p>
                Media: <a href={post.media_url} rel="noopener noreferrer" target="_blank">{post.media_url}</a>
              </p>
            )}
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
