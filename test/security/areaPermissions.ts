import type { RouteEntry } from "../../src/platform/http/auth.ts";

/**
 * Which permission family a path belongs to where it is not the path's own area (docs/design.md §7.0,
 * §7.1): the rent cycle is Finance wherever it sits, also under /api/leases (the one exception to
 * §5's per-area rule); configurations, templates, outbound messages and webhooks are Settings. The route table must agree:
 * a Finance route declared with a Leases permission would open it to every leases key.
 */
const FAMILIES: [RegExp, "Finance" | "Settings"][] = [
  [/^\/api\/rent-calls(\/|$)/, "Finance"],
  [/^\/api\/leases\/:[^/]+\/(rent-calls|payments|account|reminders|arrears|receipts)(\/|$)/, "Finance"],
  [/^\/api\/(configurations|templates|messages|webhook-subscriptions)(\/|$)/, "Settings"],
  // Syndic funds are Finance (docs/design.md §7.4), also under /api/places.
  [/^\/api\/(syndic-budgets|places\/:[^/]+\/syndic-budgets)(\/|$)/, "Finance"],
  // Credits are read as Finance; buying them (checkout) is an owner's token only (docs/credits.md).
  [/^\/api\/credits(\/(?!checkout$)|$)/, "Finance"],
];
const KIND_OF_METHOD: Record<string, "Read" | "Write" | "Delete"> = {
  GET: "Read",
  HEAD: "Read",
  POST: "Write",
  PUT: "Write",
  PATCH: "Write",
  DELETE: "Delete",
};

/** The permission a route must declare when its path is in one of the families above, else null. */
export function requiredPermission(method: string, url: string): string | null {
  // Only an owner's user token buys credits (docs/specification.md, docs/design.md §7.0): never an API key.
  if (method === "POST" && url === "/api/credits/checkout") return "owner";
  const family = FAMILIES.find(([pattern]) => pattern.test(url))?.[1];
  if (!family) return null;
  const kind = KIND_OF_METHOD[method] ?? "Write";
  // Settings has no Delete permission: Write deletes (docs/decisions.md, "Contacts").
  return family === "Settings" && kind === "Delete" ? "SettingsWrite" : `${family}${kind}`;
}

/** Routes declaring another access than their family demands: `METHOD url: declared (needs X)`. */
export const misdeclaredRoutes = (table: readonly RouteEntry[]): string[] =>
  table.flatMap(({ method, url, access }) => {
    const needed = requiredPermission(method, url);
    return needed && access !== needed ? [`${method} ${url}: ${access} (needs ${needed})`] : [];
  });
