# pq-chain: one image for every role (validator node, gateway, the init job of docker-compose.yml).
# Debian bookworm, Node 20. The build stage compiles the native providers (PQClean's ML-DSA-65,
# classic-level's LevelDB, uWebSockets.js) against the same glibc the runtime stage runs.

FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY tsconfig.json ./
COPY cli ./cli
COPY clients ./clients
COPY configs ./configs
COPY devnet ./devnet
COPY kernel ./kernel
COPY plugins ./plugins
COPY sdk ./sdk
COPY test ./test
COPY bench ./bench
# The Markdown the gateway's documentation assistant indexes at build (build:gateway).
COPY README.md ./
COPY docs ./docs
# npm ci runs the install scripts (native builds) and `prepare` (tsc, contract templates).
RUN npm ci --no-audit --no-fund \
 && node -e "import('./dist/kernel/crypto/select-provider.js').then((m) => { const r = m.selectProvider('pqclean'); console.log('native provider:', r.provider.name, '-', r.reason); })" \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
# A user of its own: nothing in the container runs as root.
RUN groupadd --system chain \
 && useradd --system --gid chain --home-dir /data --shell /usr/sbin/nologin chain \
 && mkdir -p /data \
 && chown chain:chain /data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/configs ./configs
COPY --from=build /app/plugins/sentinel/model ./plugins/sentinel/model
RUN chmod 0755 /app/dist/cli/main.js && ln -s /app/dist/cli/main.js /usr/local/bin/chain
USER chain
# Homes and chain data (chain init / chain testnet write here).
VOLUME /data
# Node RPC, P2P, gateway.
EXPOSE 9933 26656 3000
# The node's /health by default; the gateway's service sets HEALTH_URL to its own port.
ENV HEALTH_URL=http://127.0.0.1:9933/health
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.HEALTH_URL).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["chain"]
CMD ["--help"]
