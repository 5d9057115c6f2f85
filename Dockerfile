# The suigw image: every role from one image, `<image> <role> [options]` (the Helm chart's
# `args: [role, …]`). Build: `make image` (scripts/build-image.sh). Two stages: the first compiles
# the TypeScript (npm run build → dist/), the second carries only the build and the production
# dependencies, and runs as an unprivileged user.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-build-assets.js scripts/
COPY services services
COPY operator operator
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# The chart's pods run as uid/gid 10001 with a read-only root file system (values.yaml
# podSecurityContext); the image's own user is the same, numeric so runAsNonRoot can verify it.
RUN groupadd --system --gid 10001 suigw \
 && useradd --system --uid 10001 --gid suigw --home-dir /app --no-create-home --shell /usr/sbin/nologin suigw
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; no lifecycle scripts (none of them is needed to run the build).
# TypeScript (23 MB) comes in as a peer of @mysten/sui's gql.tada, and only gql.tada's CLI and
# editor plugin load it; the build stage has already compiled our code, so nothing here runs it.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver \
 && npm cache clean --force
COPY --from=build /src/dist ./dist
USER 10001:10001
# Node is PID 1: it receives the kubelet's SIGTERM directly, and every long-running role handles
# it (services/cli/runtime.ts onShutdown: drain, flush usage, exit 0).
ENTRYPOINT ["node", "/app/dist/services/cli/suigw.js"]
CMD ["--help"]
# Last, so a new revision does not invalidate the dependency layers above.
ARG VERSION=0.0.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="suigw" \
      org.opencontainers.image.description="A self-hostable gateway to the Sui blockchain: REST, JSON-RPC, GraphQL and gRPC behind one API key." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/suigw/suigw" \
      org.opencontainers.image.licenses="UNLICENSED" \
      org.opencontainers.image.base.name="docker.io/library/node:20-bookworm-slim"
