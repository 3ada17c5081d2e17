// Runs the real entry points (src/server.ts, src/cli/*) in child processes, as built once for the
// test run (vitest.config.ts; what `npm start` and the container run), or a build of them
// (runBuilt) with Node alone. A process started through tsx cost about 2.5 s of CPU, its build
// 0.5; the sources through tsx are what `npm run <command>` runs, and the tests that run those
// (runEntryOnTerminal, the npm scripts) still do.
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { createRequire } from 'node:module'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

import { inject } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

export interface RunningProcess {
  child: ChildProcess
  stdout(): string
  stderr(): string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** An empty working directory, so no developer's .env is picked up. */
export const emptyDirectory = () => mkdtemp(path.join(tmpdir(), 'ups-proc-'))

/** An entry point (src/server.ts, src/cli/<command>.ts) as built for this test run. */
export function runEntry(entry: string, args: string[], env: Record<string, string>, cwd: string): RunningProcess {
  return runBuilt(builtEntry(entry), args, env, cwd)
}

/** Where this run's build has an entry point: src/cli/migrate.ts → <build>/cli/migrate.js. */
function builtEntry(entry: string): string {
  if (!/^src\/(server|cli\/[\w-]+)\.ts$/.test(entry)) throw new Error(`no built entry point for ${entry}`)
  return path.join(path.dirname(inject('serverBundle')), entry.slice('src/'.length).replace(/\.ts$/, '.js'))
}

/**
 * An entry point on a terminal of its own (a pseudo-terminal made by util-linux's `script`), as
 * when a person runs it: `type` answers a prompt once it has appeared in the output.
 */
export function runEntryOnTerminal(entry: string, env: Record<string, string>, cwd: string): RunningProcess & { answer(prompt: string, text: string): Promise<void> } {
  const command = [process.execPath, '--import', tsxLoader, path.join(root, entry)].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ')
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', TERM: 'dumb', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  const running: RunningProcess = { child, stdout: () => stdout, stderr: () => stderr, exited }
  let answered = 0
  return {
    ...running,
    async answer(prompt, text) {
      // Each prompt once: the n-th time this prompt appears is the one to answer.
      const from = answered
      const at = await waitForOutput(running, (output) => {
        const found = output.indexOf(prompt, from)
        return found === -1 ? undefined : found
      })
      answered = at + prompt.length
      child.stdin.write(`${text}\r`)
    },
  }
}

/** A built script (an absolute path) run by Node alone, as `npm start` and the container do. */
export function runBuilt(script: string, args: string[], env: Record<string, string>, cwd: string): RunningProcess {
  return runNode([script, ...args], env, cwd)
}

function runNode(nodeArgs: string[], env: Record<string, string>, cwd: string): RunningProcess {
  const child = spawn(process.execPath, nodeArgs, {
    cwd,
    // Request limits out of the way unless a test sets its own.
    env: { PATH: process.env.PATH ?? '', ANONYMOUS_RATE_LIMIT: '1000000/60', DEFAULT_RATE_LIMIT: '1000000/60', SIGNUP_RATE_LIMIT: '1000000/60', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

/**
 * Resolves with what `find` finds in the process's output, as soon as it appears (checked on
 * every chunk, not on a clock); rejects if the process exits first or after `timeoutMs`, a bound
 * for a machine that is very busy, not a measure of speed.
 */
export function waitForOutput<T>(running: RunningProcess, find: (stdout: string) => T | undefined, timeoutMs = 60_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const check = () => {
      const found = find(running.stdout())
      if (found === undefined) return
      clearTimeout(timer)
      running.child.stdout?.off('data', check)
      resolve(found)
    }
    const timer = setTimeout(() => reject(new Error(`expected output did not come in ${timeoutMs} ms:\n${running.stdout()}\n${running.stderr()}`)), timeoutMs)
    running.child.stdout?.on('data', check)
    running.exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`process exited:\n${running.stdout()}\n${running.stderr()}`))
    })
    check()
  })
}

/**
 * Starts src/server.ts as a person would with `npm start`: with `env` and nothing else (no test
 * settings, no raised limits), and resolves once it listens.
 */
export function startServerAsIs(env: Record<string, string>, cwd: string): Promise<RunningProcess & { url: string }> {
  const child = spawn(process.execPath, [builtEntry('src/server.ts')], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  return listening({ child, stdout: () => stdout, stderr: () => stderr, exited })
}

/** Starts the server (as built for this run) on a free port and resolves once it listens. */
export function startServer(env: Record<string, string>, cwd: string): Promise<RunningProcess & { url: string }> {
  return listening(runEntry('src/server.ts', [], { PORT: '0', LOG_LEVEL: 'info', ...env }, cwd))
}

/** Starts a built server (its server.js) on a free port and resolves once it listens. */
export function startBuiltServer(script: string, env: Record<string, string>, cwd: string): Promise<RunningProcess & { url: string }> {
  return listening(runBuilt(script, [], { PORT: '0', LOG_LEVEL: 'info', ...env }, cwd))
}

async function listening(server: RunningProcess): Promise<RunningProcess & { url: string }> {
  const url = await waitForOutput(server, (stdout) => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1])
  return { ...server, url }
}

/** Stops each running server with SIGTERM and waits for it to exit (one already gone is skipped). */
export async function stopServers(...servers: (RunningProcess | undefined)[]): Promise<void> {
  for (const server of servers) {
    if (!server || server.child.exitCode !== null || server.child.signalCode !== null) continue
    server.child.kill('SIGTERM')
    await server.exited
  }
}

/** A TCP port free on the loopback address right now (for a server whose address must be known before it starts). */
export function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
    probe.on('error', reject)
  })
}
