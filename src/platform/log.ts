import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";

export type LogFormat = "pretty" | "json";

/** LOG_FORMAT, else readable on a terminal and JSON otherwise (Docker, CI, log shippers). */
export function logFormat(
  config: Pick<Config, "LOG_FORMAT">,
  out: { isTTY?: boolean } = process.stdout,
): LogFormat {
  return config.LOG_FORMAT ?? (out.isTTY ? "pretty" : "json");
}

/** The service's logger: pino's JSON lines, or each made one readable line (`prettyLine`). */
export function createLogger(config: Pick<Config, "LOG_FORMAT" | "LOG_LEVEL">): Logger {
  if (logFormat(config) === "json") return pino({ level: config.LOG_LEVEL });
  const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  return pino(
    { level: config.LOG_LEVEL },
    { write: (line: string) => void process.stdout.write(prettyLine(line, color)) },
  );
}

const LEVELS: Record<number, [string, string]> = {
  10: ["TRACE", "90"],
  20: ["DEBUG", "90"],
  30: ["INFO ", "32"],
  40: ["WARN ", "33"],
  50: ["ERROR", "31"],
  60: ["FATAL", "35"],
};
const QUIET = new Set(["level", "time", "pid", "hostname", "msg", "err", "req", "res", "v"]);

/**
 * One pino JSON line as `12:04:05 INFO  message key=value`, a request as its method and URL, an
 * error with its stack. Written here rather than taken from pino-pretty: these few cases are all
 * the service logs, and no dependency (with its own install) is added for them (docs/decisions.md).
 */
export function prettyLine(json: string, color = false): string {
  let entry: Record<string, any>;
  try {
    entry = JSON.parse(json);
  } catch {
    return json;
  }
  const paint = (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const [label, code] = LEVELS[entry.level] ?? [String(entry.level), "0"];
  const time = new Date(entry.time ?? Date.now()).toTimeString().slice(0, 8);
  const parts = [paint("90", time), paint(code, label), entry.msg ?? ""];
  if (entry.req) parts.push(`${entry.req.method} ${entry.req.url}`);
  if (entry.res) parts.push(`-> ${entry.res.statusCode}`);
  for (const [key, value] of Object.entries(entry)) {
    if (!QUIET.has(key))
      parts.push(paint("90", `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`));
  }
  const stack = entry.err
    ? `\n${paint(code, entry.err.stack ?? entry.err.message ?? JSON.stringify(entry.err))}`
    : "";
  return `${parts.filter((p) => p !== "").join(" ")}${stack}\n`;
}
