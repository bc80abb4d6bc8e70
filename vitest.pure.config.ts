import { defineConfig } from "vitest/config";

/**
 * The tests that need no database: deciders and the law's pure rules. Mutation testing runs these
 * (stryker.config.mjs); no globalSetup, so no PostgreSQL is started or asked for.
 */
export default defineConfig({
  test: {
    include: ["test/commands/**/*.test.ts", "test/law/**/*.test.ts"],
    // Renders PDFs (seconds per test) and judges no rule: the whole suite runs it.
    exclude: ["test/commands/leaseContract.test.ts"],
    testTimeout: 30_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
