# syntax=docker/dockerfile:1
# Talab server image: build the workspace, deploy the server with production dependencies only, and run that
# folder with plain node as a non-root user. Build: docker build -t talab .   Run: see docs/OPERATIONS.md.

ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
RUN corepack enable
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY apps/server/package.json apps/server/
COPY packages/core/package.json packages/core/
COPY packages/http-server/package.json packages/http-server/
COPY packages/client-sdk/package.json packages/client-sdk/
COPY packages/testkit/package.json packages/testkit/
RUN pnpm install --frozen-lockfile
COPY . .
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
