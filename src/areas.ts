import type { FastifyPluginAsync } from "fastify";
import { lesseeCommandRoutes } from "./commands/lessees/routes.ts";
import type { Projection } from "./platform/projections/projection.ts";
import { lesseeProjections } from "./projections/lessees.ts";
import { lesseeQueryRoutes } from "./queries/lessees.ts";

/**
 * Every area of the service: its HTTP routes (commands and queries) and its projections.
 * An area adds one entry here.
 */
export interface Area {
  name: string;
  routes: FastifyPluginAsync[];
  projections: Projection[];
}

export const areas: Area[] = [
  { name: "lessees", routes: [lesseeCommandRoutes, lesseeQueryRoutes], projections: lesseeProjections },
];
