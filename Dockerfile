FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY tsconfig.json ./
USER node
EXPOSE 3000
CMD ["node", "bin/pms.js", "serve", "--role", "all"]
