// A real HTTP endpoint for webhook tests: it checks every request's Standard Webhooks signature
// with the specification's own npm package, keeps what arrived, and answers with whatever the
// test sets (a failing endpoint, a redirect), on a port that survives a close and reopen.
import type { IncomingHttpHeaders, Server } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

import { Webhook } from 'standardwebhooks'

export interface ReceivedWebhook {
  id: string
  timestamp: string
  signatures: string[]
  body: string
  /** The parsed body: {type, timestamp, data}. */
  message: { type: string; timestamp: string; data: Record<string, unknown> }
  /** Whether a signature verified with each of the secrets given to the receiver. */
  verifiedWith: boolean[]
  path: string
}

type Answer = { status: number; headers?: Record<string, string>; body?: string }

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = []
  /** Every request, answered or not (attempts that got a failure status too). */
  attempts = 0
  secrets: string[] = []
  /** Requests that arrived while another with the same webhook-id was being answered (a double send). */
  overlaps = 0
  /** Every attempt's webhook-id, in arrival order. */
  readonly attemptIds: string[] = []
  /** What the next requests are answered with; a function decides per request, and may take its time. */
  respond: (path: string, id: string) => Answer | Promise<Answer> = () => ({ status: 204 })
  private readonly inFlight = new Set<string>()
  private server: Server | undefined
  private port = 0

  async start(): Promise<this> {
    await this.listen(0)
    return this
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`
  }

  /** Stops answering (connections are refused) until reopen(). */
  async close(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (!server) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  reopen(): Promise<void> {
    return this.listen(this.port)
  }

  of(type: string): ReceivedWebhook[] {
    return this.received.filter((entry) => entry.message.type === type)
  }

  private async listen(port: number): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', async () => {
        this.attempts += 1
        const id = String(request.headers['webhook-id'] ?? '')
        this.attemptIds.push(id)
        if (this.inFlight.has(id)) this.overlaps += 1
        this.inFlight.add(id)
        const body = Buffer.concat(chunks).toString('utf8')
        try {
          const answer = await this.respond(request.url ?? '/', id)
          if (answer.status >= 200 && answer.status < 300) this.keep(request.headers, body, request.url ?? '/')
          response.writeHead(answer.status, answer.headers)
          response.end(answer.body)
        } finally {
          this.inFlight.delete(id)
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    this.server = server
    this.port = (server.address() as AddressInfo).port
  }

  private keep(headers: IncomingHttpHeaders, body: string, path: string): void {
    const header = (name: string) => String(headers[name] ?? '')
    const verifiedWith = this.secrets.map((secret) => {
      try {
        new Webhook(secret).verify(body, { 'webhook-id': header('webhook-id'), 'webhook-timestamp': header('webhook-timestamp'), 'webhook-signature': header('webhook-signature') })
        return true
      } catch {
        return false
      }
    })
    this.received.push({
      id: header('webhook-id'),
      timestamp: header('webhook-timestamp'),
      signatures: header('webhook-signature').split(' '),
      body,
      message: JSON.parse(body) as ReceivedWebhook['message'],
      verifiedWith,
      path,
    })
  }
}
