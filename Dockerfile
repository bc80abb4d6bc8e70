# Node 24 (the LTS the tests run on, see README). One process: `node bin/pms.js` loads the
# TypeScript in-process, so `docker stop` (SIGTERM) reaches the service, which drains and exits 0
# within 25 s (docs/operations.md); compose gives it 30 s before SIGKILL.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY tsconfig.json ./
# Without DATABASE_URL the service runs its own PostgreSQL here (embedded mode): mount a volume.
RUN mkdir -p /app/data && chown node:node /app/data
ENV PMS_DATA_DIR=/app/data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
CMD ["node", "--max-old-space-size=1024", "--max-semi-space-size=16", "bin/pms.js", "serve", "--role", "all"]
