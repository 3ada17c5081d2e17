// A server-sent events client over node:http, for tests: it parses frames as a browser's
// EventSource does (id, event, data, comments) and keeps them, and says when the server ended
// the stream.
import http from 'node:http'

export interface SseFrame {
  id?: string
  event?: string
  data?: string
  /** A comment line (`: heartbeat`). */
  comment?: string
}

export interface SseClient {
  status: number
  contentType: string | null
  frames: SseFrame[]
  /** Frames with an event name (not comments or the retry line). */
  events(): SseFrame[]
  /** Resolves once the server ends the stream. */
  ended: Promise<void>
  close(): void
}

/** Opens a stream on a connection of its own (no pool keeps a socket after close()). */
export async function openStream(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const frames: SseFrame[] = []
  let resolveEnded: () => void = () => {}
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve))
  const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false })
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => request.once('response', resolve).once('error', reject))
  const client: SseClient = {
    status: response.statusCode ?? 0,
    contentType: response.headers['content-type'] ?? null,
    frames,
    events: () => frames.filter((frame) => frame.event !== undefined),
    ended,
    close: () => request.destroy(),
  }
  let buffer = ''
  response.setEncoding('utf8')
  response.on('data', (chunk: string) => {
    buffer += chunk
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      frames.push(parseFrame(buffer.slice(0, end)))
      buffer = buffer.slice(end + 2)
    }
  })
  response.once('close', resolveEnded)
  response.once('error', resolveEnded)
  return client
}

function parseFrame(text: string): SseFrame {
  const frame: SseFrame = {}
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim()
    else {
      const at = line.indexOf(':')
      const field = at === -1 ? line : line.slice(0, at)
      const value = at === -1 ? '' : line.slice(at + 1).replace(/^ /, '')
      if (field === 'id' || field === 'event') frame[field] = value
      else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`
    }
  }
  return frame
}
