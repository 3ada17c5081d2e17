// Revisions through HTTP on both databases (docs/api.md "Revisions"): a change of a post's title,
// text, visibility, tags or attachments keeps the version before it (other changes keep none);
// those who may edit the post list and read them (403 for a reader, 404 for anyone else); restoring
// one is an edit that keeps the version it replaces; only POST_REVISIONS_KEPT are kept. Who may
// read them in every visibility and status is the access matrix's (post-access.v2.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'

interface Revision {
  id: number
  title: string
  text: string
  visibility: string
  tags: string[]
  attachments: number[]
  replaced_by: number | null
}
interface RevisionPage {
  data: Revision[]
  total_count: number
}

let t: TestApp
let author: LoggedIn
let reader: LoggedIn

const call = (who: LoggedIn | null, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })

async function newPost(payload: object = {}): Promise<number> {
  const response = await call(author, 'POST', '/posts', { title: 'First', text: 'One', tags: ['a'], ...payload })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<{ id: number }>().id
}

const edit = async (id: number, changes: object) => expect((await call(author, 'PATCH', `/posts/${id}`, changes)).statusCode).toBe(200)
const revisions = async (id: number) => (await call(author, 'GET', `/posts/${id}/revisions`)).json<RevisionPage>()

beforeAll(async () => {
  t = await createTestApp({ POST_REVISIONS_KEPT: '3' })
  author = await seedAndLogin(t.app)
  reader = await seedAndLogin(t.app)
})

afterAll(async () => {
  await t.close()
})

describe('revisions', () => {
  it('keeps the version each change of title, text, visibility or tags replaced, newest first; other changes keep none', async () => {
    const id = await newPost()
    await edit(id, { title: 'Second' })
    await edit(id, { comments: 'closed' })
    await edit(id, { title: 'Second' })
    await edit(id, { text: 'Two', tags: ['b'] })
    await edit(id, { visibility: 'unlisted' })
    const page = await revisions(id)
    expect(page.total_count).toBe(3)
    expect(page.data.map((revision) => [revision.title, revision.text, revision.visibility, revision.tags])).toEqual([
      ['Second', 'Two', 'public', ['b']],
      ['Second', 'One', 'public', ['a']],
      ['First', 'One', 'public', ['a']],
    ])
    expect(page.data.every((revision) => revision.replaced_by === author.user.id)).toBe(true)
  })

  it('keeps only POST_REVISIONS_KEPT, the oldest going first', async () => {
    const id = await newPost()
    for (const title of ['2', '3', '4', '5']) await edit(id, { title })
    expect((await revisions(id)).data.map((revision) => revision.title)).toEqual(['4', '3', '2'])
  })

  it('restores a version as an edit: the post becomes it, and the version it replaced is kept', async () => {
    const id = await newPost()
    await edit(id, { title: 'Changed', text: 'Changed text', tags: ['z'] })
    const [original] = (await revisions(id)).data
    const restored = await call(author, 'POST', `/revisions/${original!.id}/restore`)
    expect(restored.statusCode, restored.body).toBe(200)
    expect(restored.json()).toMatchObject({ id, title: 'First', text: 'One', tags: ['a'] })
    expect((await revisions(id)).data.map((revision) => revision.title)).toEqual(['Changed', 'First'])
    const one = await call(author, 'GET', `/revisions/${original!.id}`)
    expect(one.json<Revision>().title).toBe('First')
  })

  it('keeps what the files were', async () => {
    const upload = await t.app.inject({
      method: 'POST',
      url: `${V2}/files`,
      headers: { ...author.headers, 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--x--\r\n',
    })
    expect(upload.statusCode, upload.body).toBe(201)
    const fileId = upload.json<{ id: number }>().id
    const id = await newPost({ attachments: [fileId] })
    await edit(id, { attachments: [] })
    expect((await revisions(id)).data[0]!.attachments).toEqual([fileId])
  })

  it('are for those who may edit: 403 for a reader of the post, 404 for anyone else, and 404 revision_not_found for one the post does not have', async () => {
    const id = await newPost()
    await edit(id, { title: 'Again' })
    expect((await call(reader, 'GET', `/posts/${id}/revisions`)).statusCode).toBe(403)
    expect((await call(null, 'GET', `/posts/${id}/revisions`)).statusCode).toBe(401)
    const hidden = await newPost({ visibility: 'private' })
    const refused = await call(reader, 'GET', `/posts/${hidden}/revisions`)
    expect(refused.statusCode).toBe(404)
    expect(refused.json<{ code: string }>().code).toBe('post_not_found')
    const kept = (await revisions(id)).data[0]!.id
    expect((await call(reader, 'GET', `/revisions/${kept}`)).statusCode).toBe(403)
    const missing = await call(author, 'GET', `/revisions/${kept + 1000000}`)
    expect(missing.statusCode).toBe(404)
    expect(missing.json<{ code: string }>().code).toBe('revision_not_found')
    expect((await call(reader, 'POST', `/revisions/${kept}/restore`)).statusCode).toBe(403)
    // A revision of a post the caller may not read is as one that does not exist.
    await edit(hidden, { title: 'Hidden again' })
    const ofHidden = (await revisions(hidden)).data[0]!.id
    for (const method of ['GET', 'POST'] as const) {
      const answer = await call(reader, method, `/revisions/${ofHidden}${method === 'POST' ? '/restore' : ''}`)
      expect(answer.statusCode).toBe(404)
      expect(answer.json<{ code: string }>().code).toBe('revision_not_found')
    }
  })
})
