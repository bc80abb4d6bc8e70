import { describe, expect, it } from "vitest";
import { type TypeCommand, typeDecider } from "../../src/commands/types/decider.ts";
import { codeFromName } from "../../src/platform/resource/catalog.ts";
import { deciderSpec, refusal } from "../support/deciderSpec.ts";

const id = "0b6f9a8e-2222-4c3b-9d4e-000000000001";
const { given } = deciderSpec(typeDecider);
const command: TypeCommand = {
  type: "CreateTenantType",
  type_id: id,
  kind: "room",
  input: { code: "wine_cellar", name: "Wine cellar" },
  code_in_global_catalog: false,
};

describe("tenant type decider", () => {
  it("creates a tenant type", () => {
    expect(given([]).when(command)()).toEqual([
      {
        type: "TenantTypeCreated",
        data: { type_id: id, kind: "room", code: "wine_cellar", name: "Wine cellar" },
      },
    ]);
  });

  it("refuses a code already in the global catalog or already created (409 on code)", () => {
    const global = refusal(
      given([]).when({
        ...command,
        input: { code: "kitchen", name: "Kitchen" },
        code_in_global_catalog: true,
      }),
    );
    expect(global.status).toBe(409);
    expect(global.details?.[0]?.field).toBe("code");
    const again = refusal(given(given([]).when(command)()).when(command));
    expect(again.status).toBe(409);
  });

  it("derives codes from names", () => {
    expect(codeFromName("Cave à vin", "type")).toBe("cave_a_vin");
    expect(codeFromName("  Salle de jeux!! ", "type")).toBe("salle_de_jeux");
    expect(codeFromName("***", "type")).toBe("type");
  });
});
