import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Configuration,
  configurationStream,
  DEFAULT_REMINDER_LEVELS,
  templateStream,
} from "../../src/events/settings.ts";
import { configurationsProjection, templatesProjection } from "../../src/projections/settings.ts";
import { readConfiguration, readTemplate } from "../../src/queries/settings.ts";
import { on, projectionSpec } from "../support/projectionSpec.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const configuration: Configuration = {
  reminder_levels: DEFAULT_REMINDER_LEVELS,
  receipt_numbering: { prefix: "Q", reset: "YEARLY" },
  sender: { name: "SCI Les Tilleuls", email: "gestion@example.org", address: null },
};

describe.each(databaseKinds)("settings projections on %s", (kind) => {
  let spec: Awaited<ReturnType<typeof projectionSpec>>;
  beforeAll(async () => {
    spec = await projectionSpec(kind, [configurationsProjection, templatesProjection]);
  });
  afterAll(async () => spec?.close());

  it("given two saves, then one row per tenant holding the last, at the last revision", async () => {
    const tenant = randomUUID();
    const later = { ...configuration, reminder_levels: [] };
    const t = await spec.given(
      [
        on(configurationStream(tenant), { type: "ConfigurationSaved", data: configuration }),
        on(configurationStream(tenant), { type: "ConfigurationSaved", data: later }),
      ],
      tenant,
    );
    expect(await t.rows("configurations")).toMatchObject([{ id: tenant, reminder_levels: [], revision: 1 }]);
    expect(await readConfiguration(spec.sql, tenant)).toEqual(later);
  });

  it("given a save and a reset, then the row stays (its version) with no source; other codes have none", async () => {
    const tenant = randomUUID();
    const s = templateStream(tenant, "reminder");
    const t = await spec.given(
      [
        on(s, { type: "TemplateSaved", data: { code: "reminder", source: "Relance" } }),
        on(templateStream(tenant, "recu"), { type: "TemplateSaved", data: { code: "recu", source: "Reçu" } }),
        on(s, { type: "TemplateReset", data: { code: "reminder" } }),
      ],
      tenant,
    );
    expect(await t.rows("templates", "code")).toMatchObject([
      { code: "recu", source: "Reçu", revision: 0 },
      { code: "reminder", source: null, revision: 1 },
    ]);
    expect(await readTemplate(spec.sql, tenant, "reminder")).toBeNull();
    expect(await readTemplate(spec.sql, tenant, "recu")).toBe("Reçu");
  });
});
