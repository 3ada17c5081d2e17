#!/usr/bin/env bash
# Runs the SQLite test suite again on Node.js 24 (the current LTS) besides the machine's Node,
# but the browser tests of the pages themselves (test/browser: the admin console, the API docs,
# the example frontends), which test what Chromium runs and run on the machine's Node. The browser
# tests of server features (passkeys, provider sign-in, uploads, streams, CAPTCHA: src/**) stay.
# Node 24 comes from the npm registry's node-linux-<arch> package (the official binary inside an
# npm package), into a temporary directory; nothing is installed system-wide. No rebuild is
# needed: on Node 24 the service loads better-sqlite3 13, which ships a Node-API binary
# (src/db/sqlite-driver.ts). Needs `npm ci` (or `npm install`) to have run.
set -euo pipefail
cd "$(dirname "$0")/.."
major=${NODE_TEST_MAJOR:-24}
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "test-node24: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
dir=$(mktemp -d /tmp/node"$major".XXXXXX)
trap 'rm -rf "$dir"' EXIT
npm pack --silent --pack-destination "$dir" "node-linux-$arch@$major" >/dev/null
tar -xzf "$dir"/node-linux-"$arch"-*.tgz -C "$dir"
export PATH="$dir/package/bin:$PATH"
echo "test-node24: SQLite suite on Node.js $(node --version), but the pages' browser tests (test/browser)"
TEST_WITHOUT_PAGES=1 node node_modules/vitest/vitest.mjs run --project sqlite
