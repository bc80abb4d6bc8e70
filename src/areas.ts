import type { FastifyPluginAsync } from "fastify";
import type { Projection } from "./platform/projections/projection.ts";

/**
 * Every area of the service: its HTTP routes (commands and queries) and its projections.
 * An area adds one entry here.
 */
export interface Area {
  name: string;
  routes: FastifyPluginAsync[];
  projections: Projection[];
}

export const areas: Area[] = [];
