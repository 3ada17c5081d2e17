// Files the service reads from its own project directory (mail templates, the account pages, the
// built admin console). Found from this module's place upwards, the first directory with a
// package.json: src/shared in development and tests, dist/ or one of its chunks when built.
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

function findProjectRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}: the service's files must stay inside its project directory`)
  }
}

export const PROJECT_ROOT = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)))

/** A path inside the project directory. */
export function projectPath(...segments: string[]): string {
  return path.join(PROJECT_ROOT, ...segments)
}
