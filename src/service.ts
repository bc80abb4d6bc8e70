import { areas } from "./areas.ts";
import { PERSONAL_DATA } from "./events/personalData.ts";
import { STREAM_CATEGORIES } from "./events/streams.ts";
import type { Wiring } from "./platform/area.ts";
import type { Config } from "./platform/config.ts";
import type { Sql } from "./platform/db.ts";
import type { EventStore } from "./platform/eventstore/eventStore.ts";
import {
  openEventStoreWith,
  type Service,
  type StartOptions,
  startServiceWith,
} from "./platform/startService.ts";

export { openDatabase, type Role, type Service, type StartOptions } from "./platform/startService.ts";

/**
 * The composition root of the service (docs/architecture.md): the platform knows no area, this
 * wires the areas, their stream categories and their personal data in (upcasters: src/areas.ts).
 */
export const wiring: Wiring = {
  areas,
  streamCategories: STREAM_CATEGORIES,
  personalData: PERSONAL_DATA,
};

/** Opens storage, migrates, and starts the roles asked for in this process. */
export const startService = (config: Config, options: StartOptions = {}): Promise<Service> =>
  startServiceWith(wiring, config, options);

/** The service's event store, personal fields sealed (src/platform/startService.ts). */
export const openEventStore = (config: Config, sql: Sql): Promise<EventStore> =>
  openEventStoreWith(wiring, config, sql);
