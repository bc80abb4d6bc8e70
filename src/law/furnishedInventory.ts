import { furnished, type LeaseType } from "./leaseTypes.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * The furniture a furnished dwelling let as the tenant's main home must hold at the least
 * (loi n° 89-462 art. 25-4; décret n° 2015-981 du 31 juillet 2015, art. 2, in force for contracts
 * from 1 September 2015). Each item with its number in art. 2.
 */

export const DECRET_2015_981 = "décret n° 2015-981 du 31 juillet 2015";
export const IN_FORCE_FROM = "2015-09-01";

export const REQUIRED_FURNITURE = [
  { item: "BEDDING", number: 1, label: "Literie comprenant couette ou couverture" },
  {
    item: "BEDROOM_WINDOW_BLACKOUT",
    number: 2,
    label:
      "Dispositif d'occultation des fenêtres dans les pièces destinées à être utilisées comme chambre à coucher",
  },
  { item: "HOB", number: 3, label: "Plaques de cuisson" },
  { item: "OVEN_OR_MICROWAVE", number: 4, label: "Four ou four à micro-ondes" },
  {
    item: "FRIDGE_AND_FREEZER",
    number: 5,
    label:
      "Réfrigérateur et congélateur ou, au minimum, un réfrigérateur doté d'un compartiment permettant de disposer d'une température inférieure ou égale à -6 °C",
  },
  { item: "TABLEWARE", number: 6, label: "Vaisselle nécessaire à la prise des repas" },
  { item: "KITCHEN_UTENSILS", number: 7, label: "Ustensiles de cuisine" },
  { item: "TABLE_AND_SEATS", number: 8, label: "Table et sièges" },
  { item: "STORAGE_SHELVES", number: 9, label: "Étagères de rangement" },
  { item: "LIGHTING", number: 10, label: "Luminaires" },
  {
    item: "CLEANING_EQUIPMENT",
    number: 11,
    label: "Matériel d'entretien ménager adapté aux caractéristiques du logement",
  },
] as const;

export type RequiredItem = (typeof REQUIRED_FURNITURE)[number]["item"];
export const REQUIRED_ITEMS = REQUIRED_FURNITURE.map((f) => f.item) as [RequiredItem, ...RequiredItem[]];

export const articleOf = (number: number) => `${DECRET_2015_981}, art. 2, ${number}°`;

export interface InventoryFacts {
  lease_type: LeaseType;
  start_date: string;
  /** The inventory recorded for the lease (null: none): the items and how many of each. */
  inventory: { recorded_on: string; items: { item: string; quantity: number }[] } | null;
}

const RULE = "FURNISHED_INVENTORY";
const REFERENCE = `${LOI_89}, art. 25-4; ${DECRET_2015_981}, art. 2`;

/** Every item of art. 2 present (quantity ≥ 1) in a furnished lease's inventory. */
export function furnishedInventoryVerdict(facts: InventoryFacts): Verdict {
  if (!furnished(facts.lease_type))
    return verdict(RULE, "NOT_APPLICABLE", "Not a furnished lease", REFERENCE);
  if (facts.start_date < IN_FORCE_FROM)
    return verdict(
      RULE,
      "NOT_APPLICABLE",
      `Concluded before ${IN_FORCE_FROM}, when the décret came into force`,
      REFERENCE,
    );
  if (!facts.inventory)
    return verdict(RULE, "UNKNOWN", "No inventory of the furniture is recorded for the lease", REFERENCE);
  const present = new Set(facts.inventory.items.filter((i) => i.quantity >= 1).map((i) => i.item));
  const missing = REQUIRED_FURNITURE.filter((f) => !present.has(f.item));
  const details = {
    recorded_on: facts.inventory.recorded_on,
    missing: missing.map((f) => ({ item: f.item, label: f.label, legal_reference: articleOf(f.number) })),
  };
  if (missing.length === 0)
    return verdict(
      RULE,
      "PASS",
      `Every item of ${DECRET_2015_981}, art. 2 is in the inventory`,
      REFERENCE,
      details,
    );
  return verdict(
    RULE,
    "FAIL",
    `Required furniture missing: ${missing.map((f) => `${f.item} (${articleOf(f.number)})`).join(", ")}`,
    REFERENCE,
    {
      ...details,
      errors: missing.map((f) => ({
        field: "items",
        message: `${f.item} is required (${articleOf(f.number)})`,
      })),
    },
  );
}
