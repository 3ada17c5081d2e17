// A TCP proxy in front of a real server (PostgreSQL, Redis, S3), so a test can take the server
// "down" for the service under test — refuse new connections and cut open ones — and bring it
// back, or hold what clients send (a server that stops answering mid-request), without touching
// the shared server other tests use.
import net from 'node:net'

export interface TcpProxy {
  port: number
  /** Cuts every open connection and refuses new ones. */
  down(): Promise<void>
  /** Accepts connections again, on the same port. */
  up(): Promise<void>
  /** Keeps connections open but forwards nothing more that clients send, until release(). */
  hold(): void
  release(): void
  close(): Promise<void>
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>()
  const track = (socket: net.Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  }
  let server: net.Server | undefined
  let port = 0
  let held = false
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>()
  const forward = (pair: { client: net.Socket; upstream: net.Socket }) => {
    if (held) return
    pair.client.pipe(pair.upstream)
    pair.client.resume()
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, targetHost)
        track(client)
        track(upstream)
        const pair = { client, upstream }
        pairs.add(pair)
        client.on('close', () => pairs.delete(pair))
        upstream.pipe(client)
        if (held) client.pause()
        else forward(pair)
        client.on('error', () => upstream.destroy())
        upstream.on('error', () => client.destroy())
      })
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        port = (server?.address() as net.AddressInfo).port
        resolve()
      })
    })

  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      if (!server) return resolve()
      server.close(() => resolve())
      server = undefined
    })

  await listen()
  return {
    get port() {
      return port
    },
    down: stop,
    up: listen,
    hold() {
      held = true
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream)
        client.pause()
      }
    },
    release() {
      held = false
      for (const pair of pairs) forward(pair)
    },
    close: stop,
  }
}
