import { z } from "zod";

const PORT_MESSAGE = "must be a port number from 0 to 65535";

const schema = z.object({
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce
    .number({ error: PORT_MESSAGE })
    .int(PORT_MESSAGE)
    .min(0, PORT_MESSAGE)
    .max(65535, PORT_MESSAGE)
    .default(3000),
  DATABASE_URL: z.string().url().optional(),
  EVENTSTORE_URL: z
    .string()
    // The schemes KurrentDB names too; the adapter gives them to client 6.2.1 as esdb
    // (eventstoredb/connectionString.ts toClientConnectionString, docs/eventstoredb.md).
    .regex(/^(esdb|kurrentdb|kdb)(\+discover)?:\/\//, "must start with esdb:// or kurrentdb://")
    .optional(),
  PMS_DATA_DIR: z.string().min(1).default("./data"),
  PMS_SERVER_DIR: z.string().min(1).optional(),
  PMS_ADMIN_API_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  /**
   * The master key sealing the data keys of personal data (docs/personal-data.md): 32 bytes,
   * base64 or hex. Unset: a development key written in the source, for `npm start` only.
   */
  PMS_DATA_KEY: z
    .string()
    .refine(
      (v) => (/^[0-9a-fA-F]{64}$/.test(v) ? true : Buffer.from(v, "base64").length === 32),
      "must be 32 bytes as base64 or 64 hex digits",
    )
    .optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Unset: pretty on a terminal, JSON otherwise (docs/operations.md, "Logs"). */
  LOG_FORMAT: z.enum(["pretty", "json"]).optional(),
  PMS_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(60_000),
  /** Bytes of answers the read cache keeps (src/platform/http/readCache.ts); 0 turns it off. */
  PMS_READ_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(32 * 1024 * 1024),
  PMS_READ_YOUR_WRITES_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /** Least time between two fetches of an identity provider's JWKS (docs/security.md, "User tokens"). */
  PMS_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Where the outbox sends email (docs/messages.md): `smtp://user:pass@host:587` or `smtps://…`.
   * Unset: messages are queued and stay QUEUED, visible, until it is set.
   */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/]/, "must be an smtp:// or smtps:// URL")
    .optional(),
  /** The sender of messages whose tenant names none: `address` or `Name <address>`. */
  SMTP_FROM: z
    .string()
    .regex(/^(?:[^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, "must be an address or Name <address>")
    .default("no-reply@pms.invalid"),
  /** How long a deliverer's claim on a message holds (its send must end within it). */
  PMS_OUTBOX_CLAIM_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** How often the worker looks for due messages (and other reactions) when nothing wakes it. */
  PMS_OUTBOX_POLL_MS: z.coerce.number().int().min(50).max(3_600_000).default(1000),
  /**
   * Outbound webhooks (docs/webhooks.md): accept receivers on this machine (http or https to
   * localhost, 127.0.0.1, ::1). Off in production: a subscription must not reach the service's network.
   */
  PMS_WEBHOOKS_ALLOW_LOCALHOST: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
  /** Seconds between a webhook's attempts after the first (default ≈ 24 h in all; 8 attempts). */
  PMS_WEBHOOK_RETRY_SECONDS: z
    .string()
    .regex(/^\d+(,\d+)*$/, "must be a comma-separated list of seconds")
    .default("5,300,1800,7200,18000,28800,28800")
    .transform((v) => v.split(",").map(Number)),
  /** A subscription is disabled when its last N finished deliveries all failed (every attempt). */
  PMS_WEBHOOK_DISABLE_AFTER: z.coerce.number().int().min(1).max(1000).default(5),
  /** How often a worker looks for rent calls newly overdue (seconds). */
  PMS_WEBHOOK_OVERDUE_SCAN_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  /**
   * The payment provider of credit purchases (docs/credits.md): Stripe when its secret key is
   * set, else the local provider (embedded use: no money moves).
   */
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_/, "must be a Stripe secret key (sk_… or rk_…)")
    .optional(),
  /** The signing secret of the Stripe webhook endpoint (`whsec_…`): without it /api/webhooks/stripe is 404. */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Where Stripe Checkout sends the buyer after paying or giving up (default: this service's credit routes). */
  STRIPE_SUCCESS_URL: z.string().url().optional(),
  STRIPE_CANCEL_URL: z.string().url().optional(),
  /**
   * The local provider's signing secret (its checkout URLs and webhooks). Unset: random per process,
   * so set it when several API instances run.
   */
  PMS_LOCAL_PAYMENT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /**
   * The key sealing the portal's and audit console's session cookies (docs/portal.md). Unset:
   * random per process (sessions end at a restart), so set it when several API instances run.
   */
  PMS_SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
});

/** SMTP_FROM as an address and an optional display name. */
export function senderOf(from: string): { email: string; name: string | null } {
  const named = /^\s*([^<>]*?)\s*<([^<>]+)>\s*$/.exec(from);
  return named ? { email: named[2], name: named[1] || null } : { email: from.trim(), name: null };
}

export type Config = z.infer<typeof schema>;

/** Reads the environment; an invalid value stops the start with one clear line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(present);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigError(`Invalid configuration: ${issue.path.join(".")} ${issue.message}`);
  }
  return result.data;
}

export class ConfigError extends Error {}
