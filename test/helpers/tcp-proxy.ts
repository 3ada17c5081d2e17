// A TCP proxy in front of a real server (PostgreSQL, Redis), so a test can take the server
// "down" for the service under test — refuse new connections and cut open ones — and bring it
// back, without touching the shared server other tests use.
import net from 'node:net'

export interface TcpProxy {
  port: number
  /** Cuts every open connection and refuses new ones. */
  down(): Promise<void>
  /** Accepts connections again, on the same port. */
  up(): Promise<void>
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

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, targetHost)
        track(client)
        track(upstream)
        client.pipe(upstream).pipe(client)
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
    close: stop,
  }
}
