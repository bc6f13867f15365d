# syntax=docker/dockerfile:1
# One image for every role: `service serve` (API + web app), `service worker`, `service migrate`.
# docs/deployment.md says how it is run and what was verified how.

FROM node:20-slim AS build
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The manifests first, so that the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json ./
COPY common/package.json common/
COPY server/package.json server/
COPY cli/package.json cli/
COPY web/package.json web/
COPY bench/package.json bench/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund \
  && chmod +x cli/dist/main.js
# What runs: the compiled workspaces, their production dependencies, the built web app and the example
# project (`serve --example-data`), the pipeline templates (`GET /templates`); no sources, tests or build tools.
RUN mkdir /out \
  && cp -a package.json node_modules examples templates /out/ \
  && for workspace in common server cli; do \
       mkdir -p "/out/$workspace" && cp -a "$workspace/package.json" "$workspace/dist" "/out/$workspace/"; \
       if [ -d "$workspace/node_modules" ]; then cp -a "$workspace/node_modules" "/out/$workspace/"; fi; \
     done \
  && mkdir -p /out/web && cp -a web/package.json web/dist /out/web/

FROM node:20-slim
ENV NODE_ENV=production \
    SERVICE_HOST=0.0.0.0 \
    SERVICE_PORT=8058 \
    SERVICE_DATA_DIR=/var/lib/service
RUN groupadd --system --gid 10001 service \
  && useradd --system --uid 10001 --gid service --home-dir /var/lib/service --no-create-home service \
  && mkdir -p /var/lib/service \
  && chown service:service /var/lib/service
COPY --from=build /out /app
RUN ln -s /app/cli/dist/main.js /usr/local/bin/service
WORKDIR /var/lib/service
# The data directory: the SQLite file and local storage of a single-machine install; with PostgreSQL and
# S3 only temporary files (DuckDB's spill directory, work files, the object cache).
VOLUME /var/lib/service
USER 10001:10001
EXPOSE 8058
ENTRYPOINT ["service"]
CMD ["serve"]
