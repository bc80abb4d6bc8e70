import type { RecordedEvent } from "./eventStore.ts";

/**
 * Old shapes of events, read current (docs/audit.md, "Upcasting"). An event keeps the
 * `schema_version` it was written with; each area declares, in src/events/<area>.ts, one upcaster
 * per version step of a type whose data changed. The adapters apply them as they turn a stored
 * row into a RecordedEvent, the one place every reader passes (projections, history, replays,
 * commands' folds), so no fold ever sees an old shape.
 */
export interface Upcaster {
  type: string;
  /** The version this reads; it answers data of version `from + 1`. */
  from: number;
  upcast(data: any): unknown;
}

let registered: readonly Upcaster[] = [];
let byType: Map<string, Map<number, Upcaster>> | null = null;

/**
 * The areas' upcasters (src/events/upcasters.ts), registered by the composition root
 * (src/areas.ts) as it loads: the platform knows no area's events.
 */
export function registerUpcasters(upcasters: readonly Upcaster[]): void {
  registered = upcasters;
  byType = null;
}

// Built on first use after a registration.
function upcasters(): Map<string, Map<number, Upcaster>> {
  if (byType) return byType;
  byType = new Map();
  for (const u of registered) {
    const steps = byType.get(u.type) ?? new Map<number, Upcaster>();
    if (steps.has(u.from)) throw new Error(`two upcasters of ${u.type} from version ${u.from}`);
    steps.set(u.from, u);
    byType.set(u.type, steps);
  }
  return byType;
}

/** The version an event of this type is written with now: 1 past its last upcaster, else 1. */
export function currentSchemaVersion(type: string): number {
  const steps = upcasters().get(type);
  return steps ? Math.max(...steps.keys()) + 1 : 1;
}

/** The event in its type's current shape; the stored form stays in `as_stored`. */
export function upcast(event: RecordedEvent): RecordedEvent {
  const steps = byType === null ? upcasters().get(event.type) : byType.get(event.type);
  if (!steps) return event;
  let version = event.schema_version;
  let data = event.data;
  for (let step = steps.get(version); step; step = steps.get(version)) {
    data = step.upcast(data);
    version++;
  }
  if (version === event.schema_version) return event;
  return {
    ...event,
    schema_version: version,
    data,
    as_stored: event.as_stored ?? { schema_version: event.schema_version, data: event.data },
  } as RecordedEvent;
}
