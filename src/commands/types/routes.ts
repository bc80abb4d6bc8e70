import { typeResource } from "../../events/types.ts";
import { catalogCommandRoutes } from "../../platform/resource/catalog.ts";
import { typeDecider } from "./decider.ts";

/** POST /api/types/estates|rooms|equipment: a type of the tenant's own. */
export const typeRoutes = catalogCommandRoutes(typeResource, typeDecider);
