import type { FastifyPluginAsync } from "fastify";
import type { AreaJob } from "./jobs.ts";
import type { PersonalDataDeclaration } from "./personalData/codec.ts";
import type { SubjectErasure } from "./personalData/erasure.ts";
import type { Projection } from "./projections/projection.ts";
import type { WorkerLoop } from "./workerLoops.ts";

/**
 * An area of the service as the platform runs it: its HTTP routes (commands and queries) and its
 * projections. The platform knows no area: the composition root (src/areas.ts) lists them and
 * hands them in.
 */
export interface Area {
  name: string;
  routes: FastifyPluginAsync[];
  projections: Projection[];
  /** Background jobs (pg-boss): run by the worker role, on their cron and through the Workers routes. */
  jobs?: AreaJob[];
  /** Steps every worker process runs continuously (the outbox's deliverer, reactions). */
  loops?: WorkerLoop[];
  /** What it erases of a data subject it names elsewhere than the subject's own stream. */
  erasures?: SubjectErasure[];
}

/** What the composition root wires into the platform's service. */
export interface Wiring {
  areas: readonly Area[];
  /** Every stream category the areas write (the EventStoreDB adapter skips the others). */
  streamCategories: readonly string[];
  /** The personal fields of the areas' events, per stream category (docs/personal-data.md). */
  personalData: PersonalDataDeclaration;
}

/** Every area's erasures: run by each erasure of a lessee, owner or contact (docs/personal-data.md). */
export const erasuresOf = (areas: readonly Area[]): SubjectErasure[] =>
  areas.flatMap((a) => a.erasures ?? []);
