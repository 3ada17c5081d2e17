// Which server processes use a data directory: each one that opens the embedded database leaves
// a file named by its pid in DATA_DIR/run/ while it runs. A restore refuses while any of them is
// alive; files of processes that died without cleaning up (kill -9) are ignored.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const runDirectory = (dataDir: string) => path.join(dataDir, 'run')

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Marks the directory as used by this process until the returned function is called. */
export function holdDataDirectory(dataDir: string): () => void {
  mkdirSync(runDirectory(dataDir), { recursive: true })
  const file = path.join(runDirectory(dataDir), `${process.pid}.pid`)
  writeFileSync(file, `${process.pid}\n`)
  return () => rmSync(file, { force: true })
}

/** The pids of live processes that hold the directory. */
export function serversUsing(dataDir: string): number[] {
  let names: string[]
  try {
    names = readdirSync(runDirectory(dataDir))
  } catch {
    return []
  }
  return names
    .map((name) => /^(\d+)\.pid$/.exec(name)?.[1])
    .filter((pid): pid is string => pid !== undefined)
    .map(Number)
    .filter((pid) => pid !== process.pid && alive(pid))
}
