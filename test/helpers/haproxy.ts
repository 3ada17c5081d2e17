// Debian's HAProxy in front of server processes, as a deployment balances its nodes: round robin,
// each node health-checked on GET /ready every 200 ms and taken out at its first failed check; a
// request that could not connect to a node is sent to another (`option redispatch`), one that a
// node had already taken is never sent twice.
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { inject } from 'vitest'

import { freePort } from './process.js'
import { waitFor } from './wait.js'

export interface Balancer {
  url: string
  /** Whether HAProxy has taken the node (by its index in `nodes`) out: its health check failed. */
  isDown(index: number): Promise<boolean>
  close(): Promise<void>
}

export async function startHaproxy(nodes: readonly string[]): Promise<Balancer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ups-haproxy-'))
  const port = await freePort()
  const statsPort = await freePort()
  const servers = nodes.map((node, index) => `  server node${index + 1} ${new URL(node).host} check`).join('\n')
  const config = `global
  maxconn 2000
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout tunnel 1h
  retries 3
  option redispatch
  http-reuse never
frontend web
  bind 127.0.0.1:${port}
  default_backend nodes
frontend stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /stats
backend nodes
  balance roundrobin
  option httpchk GET /ready
  default-server inter 200ms fall 1 rise 2
${servers}
`
  await writeFile(path.join(dir, 'haproxy.cfg'), config)
  const child = spawn(inject('haproxyPath'), ['-f', path.join(dir, 'haproxy.cfg'), '-db'], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`)
      return (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200
    })
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
  return {
    url,
    async isDown(index) {
      const [header, ...rows] = (await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text()).trim().split('\n')
      const columns = header!.replace(/^# /, '').split(',')
      const row = rows.map((line) => line.split(',')).find((fields) => fields[columns.indexOf('pxname')] === 'nodes' && fields[columns.indexOf('svname')] === `node${index + 1}`)
      return row?.[columns.indexOf('status')]?.startsWith('DOWN') === true
    },
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await exited
      }
      await rm(dir, { recursive: true, force: true })
    },
  }
}
