// Node's module compile cache (Node 22.1 and later): V8's compiled code for each module is kept on
// disk, so the next start skips most of the parsing and compiling (docs/performance.md,
// "Start-up"). Node 20 has no such cache. Nothing here may stop the service from starting: a
// directory that cannot be made or written leaves the start as it would be without a cache.
//
// The cache is code that the process will run, so its directory must be this user's alone: a
// directory of our own in the system's temporary directory, made private, and refused if anyone
// else owns it or could write to it (another user could otherwise plant compiled code there).
// NODE_COMPILE_CACHE, when set, is Node's own: Node turns the cache on before any module loads.
import { lstatSync, mkdirSync } from 'node:fs'
import module from 'node:module'
import os from 'node:os'
import path from 'node:path'

interface CompileCacheApi {
  enableCompileCache?: (directory?: string) => { status: number; directory?: string }
  getCompileCacheDir?: () => string | undefined
  flushCompileCache?: () => void
}

const api = module as unknown as CompileCacheApi

/** The private cache directory, made if missing; undefined when it is not safely ours. */
function privateDirectory(): string | undefined {
  const uid = process.getuid?.()
  const directory = path.join(os.tmpdir(), `user-post-service-compile-cache-${uid ?? 'user'}`)
  mkdirSync(directory, { recursive: true, mode: 0o700 })
  const stat = lstatSync(directory)
  const ours = stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0
  return ours ? directory : undefined
}

/** Turns the cache on where the runtime has it. */
export function enableCompileCache(): void {
  if (api.enableCompileCache === undefined || api.getCompileCacheDir?.() !== undefined) return
  try {
    const directory = privateDirectory()
    if (directory !== undefined) api.enableCompileCache(directory)
  } catch {
    // No usable directory: the service starts without the cache.
  }
}

/**
 * Writes what the start compiled now rather than at exit, so a process that never exits cleanly
 * (killed, or a worker that crashes) still leaves its successor a cache.
 */
export function flushCompileCache(): void {
  try {
    api.flushCompileCache?.()
  } catch {
    // As above: the cache is an optimisation, never a reason to fail.
  }
}
