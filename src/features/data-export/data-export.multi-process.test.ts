// A data export survives its builder: a server killed with SIGKILL while the ZIP streams to the
// store (S3 behind a proxy that stops forwarding) leaves the job claimed; once the lease lapses
// another server takes it over, removes what the dead build left and finishes it, and the ZIP
// downloads whole. A server stopped with SIGTERM mid-build, the store still silent, exits at once
// and gives the export back, so the next one builds it without waiting for the lease.
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { dialect } from '../../../test/helpers/app.js'
import type { TestS3Server } from '../../../test/helpers/s3.js'
import { startS3Server } from '../../../test/helpers/s3.js'
import type { Server, ServersOnOneDatabase } from '../../../test/helpers/servers.js'
import { serversOnOneDatabase, signUpAt } from '../../../test/helpers/servers.js'
import type { TcpProxy } from '../../../test/helpers/tcp-proxy.js'
import { startTcpProxy } from '../../../test/helpers/tcp-proxy.js'
import { waitFor } from '../../../test/helpers/wait.js'
import { unzip } from '../../../test/helpers/zip.js'

const POSTS = 10

describe(`a data export across processes (${dialect()})`, () => {
  let s3: TestS3Server
  let proxy: TcpProxy
  let servers: ServersOnOneDatabase
  beforeAll(async () => {
    s3 = await startS3Server()
    proxy = await startTcpProxy('127.0.0.1', Number(new URL(s3.endpoint).port))
    servers = await serversOnOneDatabase({ ...s3.env, S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`, DATA_EXPORT_LEASE_SECONDS: '3' })
  })
  afterAll(async () => {
    await servers?.close()
    await proxy?.close()
    await s3?.close()
  })

  const call = (server: Server, token: string, method: string, path: string, body?: object) =>
    fetch(`${server.url}/api/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })

  const statusAt = async (server: Server, token: string, id: number) => ((await (await call(server, token, 'GET', `/users/me/exports/${id}`)).json()) as { status: string }).status

  /** Stops the store answering, asks for an export, and answers its id once a build claimed it (and waits on the store). */
  async function exportWaitingOnTheStore(server: Server, token: string): Promise<number> {
    proxy.hold()
    const asked = await call(server, token, 'POST', '/users/me/export')
    expect(asked.status).toBe(202)
    const { id } = (await asked.json()) as { id: number }
    await waitFor(async () => (await statusAt(server, token, id)) === 'building')
    return id
  }

  it('is finished by another process after its builder is killed with SIGKILL mid-build', async () => {
    const victim = await servers.start()
    const token = await signUpAt(victim, 'kim')
    for (let index = 0; index < POSTS; index++) expect((await call(victim, token, 'POST', '/posts/', { title: `Post ${index}`, text: 'x'.repeat(200) })).status).toBe(201)
    const form = new FormData()
    form.append('file', new Blob([Buffer.from('kept across the kill\n')], { type: 'text/plain' }), 'kept.txt')
    const uploaded = await fetch(`${victim.url}/api/v2/files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })
    expect(uploaded.status).toBe(201)
    const fileId = ((await uploaded.json()) as { id: number }).id

    const id = await exportWaitingOnTheStore(victim, token)
    victim.child.kill('SIGKILL')
    await victim.exited
    proxy.release()

    // Started only now, so that the dead server is the one that claimed the export.
    const heir = await servers.start()
    await waitFor(async () => (await statusAt(heir, token, id)) === 'ready')
    const link = (await (await call(heir, token, 'POST', `/users/me/exports/${id}/link`)).json()) as { url: string }
    const download = await fetch(`${heir.url}${new URL(link.url).pathname}${new URL(link.url).search}`)
    expect(download.status).toBe(200)
    const entries = await unzip(Buffer.from(await download.arrayBuffer()))
    expect(JSON.parse(entries.get('posts.json')!.toString())).toHaveLength(POSTS)
    expect(entries.get(`files/${fileId}-kept.txt`)!.toString()).toBe('kept across the kill\n')
    // The dead build's leftovers are gone: the heir's ZIP is the one object under exports/.
    const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } })
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'exports/' }))
    expect(listed.Contents?.map((object) => object.Key)).toHaveLength(1)
    client.destroy()
  })

  it('is given back at once when its builder stops with SIGTERM mid-build, and the next process builds it', async () => {
    // A lease of ten minutes: the next process can only build the export so soon if it was given back.
    const longLease = { DATA_EXPORT_LEASE_SECONDS: '600' }
    const stopping = await servers.start(longLease)
    const token = await signUpAt(stopping, 'sam')
    const id = await exportWaitingOnTheStore(stopping, token)
    // The store still does not answer: the stop does not wait on it, and gives the export back.
    stopping.child.kill('SIGTERM')
    expect(await stopping.exited, stopping.stdout().slice(-2000)).toEqual({ code: 0, signal: null })
    proxy.release()

    const next = await servers.start(longLease)
    await waitFor(async () => (await statusAt(next, token, id)) === 'ready')
  })
})
