import { conflict } from "../../src/platform/errors.ts";
import type { Uniqueness } from "../../src/platform/reserveUnique.ts";

/** Holders are tiny "badge" streams: `Held {key}` takes a key, `Dropped` gives it up. */
export const badges: Uniqueness = {
  stream: (tenant, key) => `badge_key-${tenant}-${key}`,
  holderStream: (id) => `badge-${id}`,
  holds(events, key) {
    let held: string | null = null;
    for (const e of events) held = e.type === "Held" ? e.data.key : e.type === "Dropped" ? null : held;
    return held === key;
  },
  reserved: (holder, key, holder_revision) => ({
    type: "KeyReserved",
    data: { holder, key, holder_revision },
  }),
  released: (holder, key) => ({ type: "KeyReleased", data: { holder, key } }),
  read(event) {
    const data = event.data as { holder: string; holder_revision: number };
    if (event.type === "KeyReserved") return { reserved: data.holder, holder_revision: data.holder_revision };
    if (event.type === "KeyReleased") return { released: data.holder };
    return null;
  },
  abandoned: (holder, key) => ({ type: "Abandoned", data: { holder, key } }),
  taken: (fields) =>
    conflict(
      "Key taken",
      fields.map((field) => ({ field, message: "taken" })),
    ),
  grace_ms: 300,
};
