// The SQLite driver for the running Node.js. better-sqlite3 13 is built on Node-API 10 and ships
// prebuilt binaries (no compiler at install); Node-API 10 exists from Node 22.14, and on Node 20
// the addon crashes as it loads. There the optional `better-sqlite3-node20` (better-sqlite3 12,
// compiled at install) takes its place. 12 must not serve on Node >= 24.19: compiled against
// those headers it aborts the process when the garbage collector frees a statement.
import { createRequire } from 'node:module'

import type BetterSqlite3 from 'better-sqlite3'

const require = createRequire(import.meta.url)

/** The Node-API version better-sqlite3 13 needs. */
export const NODE_API_OF_CURRENT_DRIVER = 10

export const sqliteDriverPackage = Number(process.versions.napi) >= NODE_API_OF_CURRENT_DRIVER ? 'better-sqlite3' : 'better-sqlite3-node20'

function load(): typeof BetterSqlite3 {
  try {
    return require(sqliteDriverPackage) as typeof BetterSqlite3
  } catch (error) {
    throw new Error(
      `cannot load the SQLite driver ${sqliteDriverPackage} for Node.js ${process.version}` +
        (sqliteDriverPackage === 'better-sqlite3-node20' ? ' (it is compiled at install: run npm install with a C++ toolchain, or use Node.js >= 22.14)' : ''),
      { cause: error },
    )
  }
}

const SqliteDatabase = load()
export default SqliteDatabase
