#!/usr/bin/env bash
# Runs the test suite while the machine is busy: LOAD_PER_CORE busy processes per core (2 by
# default) spin for the whole run, the way a shared machine or a crowded CI runner takes the
# CPU. A test that fails here and passes on an idle machine waits for a time instead of an event.
#
#   bash scripts/test-under-load.sh                 # every project, as `npm test` runs them
#   bash scripts/test-under-load.sh --project sqlite src/features/files
#
# Arguments go to `vitest run`. Needs the test services (scripts/test-services.sh) and an install.
set -euo pipefail
cd "$(dirname "$0")/.."
per_core=${LOAD_PER_CORE:-2}
cores=$(node -p 'require("node:os").availableParallelism()')
busy=()
stop() { for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop EXIT
for _ in $(seq 1 $((per_core * cores))); do
  node -e 'for (;;) {}' &
  busy+=($!)
done
echo "test-under-load: ${#busy[@]} busy processes on $cores cores" >&2
start=$(date +%s)
status=0
node node_modules/vitest/vitest.mjs run "$@" || status=$?
echo "test-under-load: vitest took $(($(date +%s) - start)) s under load, exit $status" >&2
exit "$status"
