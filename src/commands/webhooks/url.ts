import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Where a webhook may be sent (docs/webhooks.md, "Addresses"): https to a public address. A
 * receiver on this machine (http or https to a loopback name or address) only when
 * PMS_WEBHOOKS_ALLOW_LOCALHOST is true (tests, a developer's machine). Private, loopback,
 * link-local (cloud metadata 169.254.169.254), unique-local, multicast and reserved addresses are
 * refused: a subscription must not make the service call into its own network (SSRF). The host
 * is checked when the subscription is saved, and at each delivery every address its name resolves
 * to, the connection then going to the address checked (receiverOf), never to a second lookup.
 *
 * Spellings of this machine are caught by the WHATWG URL parser, which normalises hosts as
 * fetch would: `127.1`, `0x7f.1` and `2130706433` become 127.0.0.1, `[::ffff:127.0.0.1]` becomes
 * `[::ffff:7f00:1]`, case and IDN forms (full-width letters) fold to `localhost`. What it keeps,
 * a trailing dot (`localhost.`), is dropped here.
 */

/** Addresses that reach this machine: loopback, and the unspecified address (connects to itself). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addSubnet("0.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");
LOOPBACK.addAddress("::", "ipv6");

/** Not public: every range a receiver on the internet cannot have (IPv4-mapped IPv6 included). */
const NOT_PUBLIC = new BlockList();
for (const [base, bits] of [
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
] as const)
  NOT_PUBLIC.addSubnet(base, bits, "ipv4");
for (const [base, bits] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["2001:db8::", 32], // documentation
  ["64:ff9b::", 96], // NAT64 to IPv4
  ["2002::", 16], // 6to4: embeds any IPv4
] as const)
  NOT_PUBLIC.addSubnet(base, bits, "ipv6");

const familyOf = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4");

export const isLoopbackAddress = (address: string): boolean =>
  isIP(address) !== 0 && LOOPBACK.check(address, familyOf(address));

export const isPublicAddress = (address: string): boolean =>
  isIP(address) !== 0 && !NOT_PUBLIC.check(address, familyOf(address));

/** The host as it will be looked up: lower case, brackets and trailing dots off. */
const bareHost = (url: URL) =>
  url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "");

const isLocalName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/** Why the URL is refused, or null. */
export function webhookUrlProblem(raw: string, allowLocalhost: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must use https";
  if (url.username || url.password) return "must not carry credentials";
  const host = bareHost(url);
  if (isLocalName(host) || isLoopbackAddress(host))
    return allowLocalhost ? null : "must not point to this machine (localhost)";
  if (url.protocol !== "https:") return "must use https";
  if (isIP(host))
    return isPublicAddress(host) ? null : "must not point to a private, loopback or link-local address";
  if (host.endsWith(".local") || host.endsWith(".internal") || !host.includes("."))
    return "must name a public host";
  return null;
}

/** Where a delivery connects: the address checked, or why none may be used. */
export type Receiver = { url: URL; address: string; family: 4 | 6 } | { problem: string };

/**
 * Before each delivery: the URL's rules, then every address the host resolves to is public (or,
 * when allowed, every one is this machine's). The delivery connects to the first address
 * returned here, so a name that resolves elsewhere a moment later (DNS rebinding) changes nothing.
 */
export async function receiverOf(raw: string, allowLocalhost: boolean): Promise<Receiver> {
  const problem = webhookUrlProblem(raw, allowLocalhost);
  if (problem) return { problem };
  const url = new URL(raw);
  const host = bareHost(url);
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) as 4 | 6 }]
    : await lookup(host, { all: true, verbatim: true }).catch(() => []);
  if (addresses.length === 0) return { problem: `${host} does not resolve` };
  const allowed = (a: string) => isPublicAddress(a) || (allowLocalhost && isLoopbackAddress(a));
  if (!addresses.every((a) => allowed(a.address)))
    return { problem: `${host} resolves to a non-public address` };
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
