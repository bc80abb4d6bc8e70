import { typeResource } from "../../events/types.ts";
import { type CatalogFacts, catalogDecider } from "../../platform/resource/catalog.ts";
import type { CreateCommand } from "../../platform/resource/decider.ts";

/** A tenant's type: refused (409 on code) when its code is global or already the tenant's. */
export const typeDecider = catalogDecider(typeResource);
export type TypeCommand = CreateCommand<typeof typeResource, CatalogFacts>;
