#!/usr/bin/env bash
# Runs the `sqlite` test project (every test file, the pages' browser tests too) on Node.js 24,
# the current LTS users run; CI runs the other projects on the machine's Node 20 (.ci/run).
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
echo "test-node24: the sqlite project on Node.js $(node --version)"
node node_modules/vitest/vitest.mjs run --project sqlite "$@"
