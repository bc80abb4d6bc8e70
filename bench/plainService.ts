import { serve } from "../src/main.ts";

/**
 * The service as `src/main.ts` runs it, but with personal fields stored in the clear: the bench's
 * `privacy` step measures the encrypting service against it (docs/performance.md).
 */
await serve(["api", "projector", "worker"], { sealPersonalData: false });
