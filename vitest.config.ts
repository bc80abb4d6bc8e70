import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // TEST_DATABASE_URL, or an embedded PostgreSQL for the whole run.
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites share one PostgreSQL server; each creates its own schema-isolated database.
    fileParallelism: true,
    maxWorkers: 2,
    pool: "forks",
  },
});
