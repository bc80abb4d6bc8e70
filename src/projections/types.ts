import { typeResource } from "../events/types.ts";
import { resourceProjection } from "../platform/resource/projection.ts";

/** `tenant_types`: the types a tenant added; the global catalog is the static table `types_catalog`. */
export const tenantTypesProjection = resourceProjection(typeResource);
