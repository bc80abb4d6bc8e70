#!/usr/bin/env node
// The CLI in this very process: tsx's loader is registered in-process (no tsx wrapper, no child),
// so a signal sent to this pid (docker stop, Ctrl-C) reaches the service (docs/operations.md).
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
