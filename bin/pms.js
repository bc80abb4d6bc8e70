#!/usr/bin/env node
// The CLI in this very process, on Node's own type stripping (Node 22.18 and later): no loader, no
// child, so a signal sent to this pid (docker stop, Ctrl-C) reaches the service (docs/operations.md).
if (!process.features.typescript) {
  console.error(
    `pms needs Node.js 22.18 or later (22, 24 or 26), which runs TypeScript itself; this is ${process.version}`,
  );
  process.exit(1);
}
await import("../src/cli.ts");
