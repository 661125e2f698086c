# syntax=docker/dockerfile:1
# email-trust in a container. `docker build -t email-trust .` builds it; compose.yaml runs two instances
# on PostgreSQL and Redis (docs/operations.md, "The container image"; docs/instances.md).
ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Build: every dependency (TypeScript included), then src/ and plugins/ compiled to dist/ (bench/ is not shipped).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would compile before the sources are copied, and tsc needs no native module.
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY src src
COPY plugins plugins
RUN npx tsc -p tsconfig.json

# 2. Production dependencies only, native modules compiled for this image.
FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# --ignore-scripts, then the two SQLite modules built explicitly: no other install script runs.
RUN npm ci --omit=dev --ignore-scripts && npm rebuild better-sqlite3 sqlite3 && npm cache clean --force

# 3. Runtime: no compiler, no dev dependency, no TypeScript; runs as the image's unprivileged `node` user.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY package.json ./
COPY --from=production-dependencies /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY bin bin
COPY policies policies
COPY schemas schemas
COPY public public
# Plugin data (plugins/<id>/data/) and the RDAP bootstrap file are read at run time from the package folder.
COPY plugins plugins
COPY src/network/data src/network/data
# The IP tables compiled once here (node_modules/.cache/email-trust), read back at every start: the service's
# user cannot write there, and would otherwise compile them at each start (about 0.3 s and 50 MB more).
RUN node -e "import('./dist/plugins/ip-intelligence/lists.js').then((lists) => lists.loadTables())"
# ./data: the default SQLite file and `email-trust rdap refresh`'s bootstrap file; owned by the service's user.
RUN mkdir data && chown node:node data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# --v8-pool-size=1: as `npm start` and bin/email-trust.js's shebang give it (src/cli/serve-flags.ts, docs/operations.md);
# every command gets it. node is named rather than the file run, so the flag does not depend on the image's env(1).
ENTRYPOINT ["node", "--v8-pool-size=1", "bin/email-trust.js"]
CMD ["serve"]
