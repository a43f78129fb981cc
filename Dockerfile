# Build stage: compile TypeScript with the full dependency set, and the sendfile module
# (native/sendfile.c, src/storage/sendfile.ts) with gcc against the image's own Node headers.
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY native ./native
COPY scripts/build.js ./scripts/build.js
COPY scripts/build-native.js ./scripts/build-native.js
RUN npm run build

# Runtime stage: production dependencies and the compiled output only, as a non-root user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 4000
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", \
       "fetch('http://127.0.0.1:4000/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# No heap shrinking while idle (memory reducer): after an idle spell V8 shrank the heap, and under the
# next burst of uploads it ran a full GC every ~10 requests, doubling their CPU (README, Performance).
# An old generation allowed to reach 128 MB before its first full GC: with the ~35 MB V8 keeps live, the
# room left after each full GC was smaller than the young generation, so under a burst of slow uploads
# V8 started a full GC every ~20 requests and their CPU doubled (bench/README.md).
# A young generation of up to 128 MB semi-spaces: under load it costs less CPU per request than smaller
# ones (bench/load.js: ~9 % more requests per second than 32 MB ones; 64 MB ones gave ~6 % less than 128).
# V8 keeps what a burst grew (256 MB of young generation, an old generation up to 4x its live size)
# while the server is idle, so the server gives it back itself once it is quiet (src/core/idle-trim.ts,
# which needs --expose-gc for V8's gc function): 10,000 distinct GraphQL documents (bench/abuse.js)
# leave RSS within +150 MiB 30 s after they stop (bench/README.md, decisions).
# No compilation cache: V8 keeps the code of every `new Function` source it compiled, keyed by the
# source, for as long as it likes; graphql-jit compiles each GraphQL document into such sources, so a
# client sending thousands of distinct documents grew the heap without bound (bench/abuse.js: 3,000
# distinct documents, 1.5 GiB of heap in use 30 s after; with the flag the heap levels off, bounded by
# the compiled-query cache's budget). Node and the other libraries compile each source once anyway.
CMD ["node", "--min-semi-space-size=16", "--max-semi-space-size=128", "--initial-old-space-size=128", \
     "--no-memory-reducer", "--no-compilation-cache", "--expose-gc", "dist/main.js"]
