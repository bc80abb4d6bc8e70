import Handlebars from "handlebars";
import { TEMPLATE_SAMPLES, type TemplateCode } from "../../events/settings.ts";
import { compileTemplate } from "../../platform/pdf/renderTemplate.ts";

/**
 * A tenant's template is checked before it is saved (docs/settings.md, "Templates"): it parses,
 * uses only the allowed helpers and no partials, names no property of JavaScript objects, and
 * renders the code's sample view in strict mode (an unknown variable is refused). The same
 * renderer (`compileTemplate`, docs/pdf.md) renders it for real, so what passes here renders there.
 */

/** Handlebars' own block helpers and the document helpers of renderTemplate.ts; no `log`, no `lookup`. */
export const TEMPLATE_HELPERS = [
  "if",
  "unless",
  "each",
  "with",
  "date",
  "money",
  "number",
  "eq",
  "or",
  "join",
];
const HELPERS = new Set(TEMPLATE_HELPERS);

/** Names that reach the objects' machinery, not data (handlebars denies them at run time too). */
const forbiddenName = (part: string) =>
  part.startsWith("__") || part in Object.prototype || part === "prototype";

type Node = hbs.AST.Node & Record<string, unknown>;
const at = (node: Node) =>
  node.loc ? ` (line ${node.loc.start.line}, column ${node.loc.start.column + 1})` : "";

/** Problems found in the syntax tree; `top` says whether the context is still the view itself. */
function walk(node: Node | undefined, problems: string[], known: Set<string>, top: boolean): void {
  if (!node || typeof node !== "object") return;
  switch (node.type) {
    case "PartialStatement":
    case "PartialBlockStatement":
      problems.push(`Partials ({{> …}}) are not allowed${at(node)}`);
      return;
    case "Decorator":
    case "DecoratorBlock":
      problems.push(`Decorators are not allowed${at(node)}`);
      return;
    case "PathExpression": {
      const path = node as unknown as hbs.AST.PathExpression;
      const bad = path.parts.find((p) => forbiddenName(String(p)));
      if (bad) problems.push(`'${bad}' is not a template variable${at(node)}`);
      else if (
        top &&
        !path.data &&
        path.depth === 0 &&
        path.parts.length > 0 &&
        !known.has(String(path.parts[0]))
      )
        problems.push(`Unknown variable '${path.original}'${at(node)}: use ${[...known].join(", ")}`);
      return;
    }
    case "MustacheStatement":
    case "SubExpression":
    case "BlockStatement": {
      const call = node as unknown as hbs.AST.MustacheStatement & { program?: Node; inverse?: Node };
      const params = call.params ?? [];
      const isCall =
        params.length > 0 || (call.hash?.pairs.length ?? 0) > 0 || node.type === "BlockStatement";
      const name = call.path.type === "PathExpression" ? (call.path as hbs.AST.PathExpression).original : "";
      if (isCall && !HELPERS.has(name)) {
        problems.push(`Unknown helper '${name}'${at(node)}: use ${TEMPLATE_HELPERS.join(", ")}`);
        return;
      }
      if (!isCall) walk(call.path as unknown as Node, problems, known, top);
      for (const p of params) walk(p as unknown as Node, problems, known, top);
      for (const pair of call.hash?.pairs ?? []) walk(pair.value as unknown as Node, problems, known, top);
      // each and with change the context: names inside are the item's, checked by the trial render.
      const inner = top && name !== "each" && name !== "with";
      walk(call.program, problems, known, inner);
      walk(call.inverse, problems, known, top);
      return;
    }
    case "Program":
      for (const statement of (node as unknown as hbs.AST.Program).body)
        walk(statement as unknown as Node, problems, known, top);
      return;
    default:
      return;
  }
}

/** What is wrong with a template of `code` (empty: it may be saved). */
export function templateProblems(code: TemplateCode, source: string): string[] {
  let ast: hbs.AST.Program;
  try {
    ast = Handlebars.parse(source);
  } catch (error) {
    return [oneLine((error as Error).message)];
  }
  const sample = TEMPLATE_SAMPLES[code];
  const problems: string[] = [];
  walk(ast as unknown as Node, problems, new Set(Object.keys(sample)), true);
  if (problems.length > 0) return problems;
  try {
    compileTemplate(source)(sample);
  } catch (error) {
    return [`Rendering the sample of '${code}' failed: ${oneLine((error as Error).message)}`];
  }
  return [];
}

/** Handlebars' parse errors span lines (the source line, a caret): one line for the API. */
const oneLine = (message: string) =>
  message
    .split("\n")
    .filter((l) => !/^-*\^$/.test(l.trim()))
    .map((l) => l.trim())
    .filter(Boolean)
    .join(" ");
