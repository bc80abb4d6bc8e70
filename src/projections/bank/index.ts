import { bankAccountResource } from "../../events/bank/index.ts";
import { resourceProjection } from "../../platform/resource/projection.ts";

/** The bank area's read models (docs/bank.md). */
export const bankProjections = [resourceProjection(bankAccountResource)];
