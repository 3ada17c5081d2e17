# syntax=docker/dockerfile:1
# A production image of the service. CI does not build it (no container engine runs on the CI
# machines); it runs the same install and build commands CI runs: `npm ci` and `npm run build`.

# Build: every dependency, then the build (esbuild bundles the server and the CLI into dist/). The toolchain is for better-sqlite3-node20,
# the Node 20 driver, which npm ci compiles as CI does; on Node 24 the service loads
# better-sqlite3 13's prebuilt binary instead (src/db/sqlite-driver.ts).
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# `npm ci` builds the admin console too (its prepare script), from admin/ and the typed client.
COPY admin ./admin
COPY clients ./clients
RUN npm ci
COPY scripts/build.mjs ./scripts/build.mjs
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Run: production dependencies, the build, the mail templates; a non-root user; the data
# directory as a volume. Node 24: the LTS that CI runs the SQLite suite on.
FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# `npm run migrate`, `backup`, `restore`, `create-superuser`: the launcher runs dist/cli here (no dev tools).
COPY scripts/run-cli.mjs ./scripts/run-cli.mjs
COPY mail-templates ./mail-templates
COPY account-pages ./account-pages
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Exec form: node itself is PID 1 and receives SIGTERM, finishes in-flight requests and exits 0
# (close-with-grace; compose's stop_grace_period leaves it the time).
CMD ["node", "--max-old-space-size=1024", "--max-semi-space-size=4", "dist/server.js"]
