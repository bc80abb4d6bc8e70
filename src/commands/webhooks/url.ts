import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/**
 * Where a webhook may be sent (docs/webhooks.md, "Addresses"): https to a public address. A
 * receiver on this machine (http or https to localhost, 127.0.0.1 or ::1) only when
 * PMS_WEBHOOKS_ALLOW_LOCALHOST is true (tests, a developer's machine). Private, loopback,
 * link-local (cloud metadata 169.254.169.254), multicast and reserved addresses are refused:
 * a subscription must not make the service call into its own network (SSRF). The literal host is
 * checked when the subscription is saved, and every address its name resolves to before each
 * delivery (a name may later resolve elsewhere).
 */

const LOCAL_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Why the URL is refused, or null. */
export function webhookUrlProblem(raw: string, allowLocalhost: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  const host = url.hostname.toLowerCase();
  const local = LOCAL_NAMES.has(host);
  if (local) return allowLocalhost ? null : "must not point to this machine (localhost)";
  if (url.protocol !== "https:") return "must use https";
  const bare = host.replace(/^\[|\]$/g, "");
  if (isIP(bare) && !isPublicAddress(bare))
    return "must not point to a private, loopback or link-local address";
  if (
    host.endsWith(".localhost") ||
    host.endsWith(".local") ||
    host.endsWith(".internal") ||
    !host.includes(".")
  )
    return "must name a public host";
  return null;
}

/** Before each delivery: every address of the host is public (or the host is an allowed local one). */
export async function resolvedUrlProblem(raw: string, allowLocalhost: boolean): Promise<string | null> {
  const problem = webhookUrlProblem(raw, allowLocalhost);
  if (problem) return problem;
  const host = new URL(raw).hostname.toLowerCase();
  if (LOCAL_NAMES.has(host)) return null;
  const bare = host.replace(/^\[|\]$/g, "");
  const addresses = isIP(bare) ? [bare] : (await lookup(bare, { all: true })).map((a) => a.address);
  return addresses.every(isPublicAddress) ? null : `${host} resolves to a non-public address`;
}

export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 4) return !PRIVATE_V4.some(([base, bits]) => inV4(address, base, bits));
  const a = address.toLowerCase();
  const mapped = a.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped) return isPublicAddress(mapped[1]);
  return !(
    a === "::" ||
    a === "::1" ||
    /^f[cd]/.test(a) || // unique local fc00::/7
    /^fe[89ab]/.test(a) || // link-local fe80::/10
    a.startsWith("ff") || // multicast
    a.startsWith("2001:db8") ||
    a.startsWith("64:ff9b")
  );
}

const PRIVATE_V4: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

const v4 = (address: string) => address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
const inV4 = (address: string, base: string, bits: number) =>
  Math.floor(v4(address) / 2 ** (32 - bits)) === Math.floor(v4(base) / 2 ** (32 - bits));
