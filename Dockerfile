# syntax=docker/dockerfile:1
# Talab server image: build the workspace, deploy the server with production dependencies only, and run that
# folder with plain node as a non-root user. Build: docker build -t talab .   Run: see docs/OPERATIONS.md.
# .ci/image builds it with buildah and signs in through it on every CI run.

# The Node major the tests run on (CI refuses another).
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
# pnpm from npm, at the version package.json names (corepack refuses registries whose metadata lacks signatures).
RUN npm install -g "pnpm@$(node -p "require('./package.json').packageManager.split('@')[1]")"
# The lockfile (and the patches it names) is all `pnpm fetch` needs, so this layer is rebuilt only when the
# dependencies change; the install after the copy then links every workspace package, whatever the workspace
# holds, from the fetched store without the network.
COPY patches patches
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline
RUN pnpm --filter @talab/server build \
  && pnpm --filter @talab/server deploy --prod /out

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/var/lib/talab
WORKDIR /app
# Only the deployed folder: dist/ (main.js, cli.js) and its production node_modules.
COPY --from=build --chown=node:node /out /app
RUN mkdir -p /var/lib/talab && chown node:node /var/lib/talab \
  && ln -s /app/dist/cli.js /usr/local/bin/talab && chmod +x /app/dist/cli.js
USER node
VOLUME ["/var/lib/talab"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# node is PID 1 here and handles SIGTERM itself (drains, then exits 0).
CMD ["node", "dist/main.js"]
