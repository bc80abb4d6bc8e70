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

/**
 * Blocks nest at most this deep, `each` loops at most 3 deep: a loop in a loop multiplies the work
 * of every render (3 lessees, 10 levels deep: 59,049 passes), and the walk and the renderer recurse.
 */
export const MAX_BLOCK_DEPTH = 20;
export const MAX_EACH_DEPTH = 3;
/**
 * Handlebars compiles each tag to JavaScript on the first render: about 1 ms a tag on this machine
 * (2,400 tags took 1.5 to 2.7 s), and its parser slows with nesting (4,000 nested blocks: 17 s).
 * So tags are counted and nesting measured before anything is parsed.
 */
export const MAX_TEMPLATE_TAGS = 400;
export const MAX_SUBEXPRESSION_DEPTH = 10;

/** What a linear scan of the source refuses before the parser sees it. */
function shapeProblems(source: string): string[] {
  const tags = source.match(/\{\{/g)?.length ?? 0;
  if (tags > MAX_TEMPLATE_TAGS) return [`At most ${MAX_TEMPLATE_TAGS} {{…}} tags (found ${tags})`];
  let depth = 0;
  // Openings {{#x}}, {{^x}} (not the else {{^}}), closings {{/x}}.
  for (const [, mark] of source.matchAll(/\{\{~?\s*(#|\^(?!\s*~?\}\})|\/)/g)) {
    depth += mark === "/" ? -1 : 1;
    if (depth > MAX_BLOCK_DEPTH) return [`Blocks nest deeper than ${MAX_BLOCK_DEPTH}`];
  }
  for (const [tag] of source.matchAll(/\{\{[^}]*\}\}/g)) {
    let open = 0;
    for (const c of tag) {
      open += c === "(" ? 1 : c === ")" ? -1 : 0;
      if (open > MAX_SUBEXPRESSION_DEPTH)
        return [`Sub-expressions nest deeper than ${MAX_SUBEXPRESSION_DEPTH}`];
    }
  }
  return [];
}

interface Scope {
  /** Whether the context is still the view itself (not inside `each` or `with`). */
  top: boolean;
  blocks: number;
  loops: number;
}

/** Problems found in the syntax tree. */
function walk(node: Node | undefined, problems: string[], known: Set<string>, scope: Scope): void {
  if (!node || typeof node !== "object") return;
  const { top } = scope;
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
      if (!isCall) walk(call.path as unknown as Node, problems, known, scope);
      for (const p of params) walk(p as unknown as Node, problems, known, scope);
      for (const pair of call.hash?.pairs ?? []) walk(pair.value as unknown as Node, problems, known, scope);
      if (node.type !== "BlockStatement") return;
      const inner = { blocks: scope.blocks + 1, loops: scope.loops + (name === "each" ? 1 : 0) };
      if (inner.blocks > MAX_BLOCK_DEPTH) {
        problems.push(`Blocks nest deeper than ${MAX_BLOCK_DEPTH}${at(node)}`);
        return;
      }
      if (inner.loops > MAX_EACH_DEPTH) {
        problems.push(`'each' loops nest deeper than ${MAX_EACH_DEPTH}${at(node)}`);
        return;
      }
      // each and with change the context: names inside are the item's, checked by the trial render.
      walk(call.program, problems, known, { ...inner, top: top && name !== "each" && name !== "with" });
      walk(call.inverse, problems, known, { ...inner, top });
      return;
    }
    case "Program":
      for (const statement of (node as unknown as hbs.AST.Program).body)
        walk(statement as unknown as Node, problems, known, scope);
      return;
    default:
      return;
  }
}

/** What is wrong with a template of `code` (empty: it may be saved). */
export function templateProblems(code: TemplateCode, source: string): string[] {
  const shape = shapeProblems(source);
  if (shape.length > 0) return shape;
  let ast: hbs.AST.Program;
  try {
    ast = Handlebars.parse(source);
  } catch (error) {
    // The parser recurses: a template nested thousands deep exhausts its stack.
    if (error instanceof RangeError) return [`Blocks nest deeper than ${MAX_BLOCK_DEPTH}`];
    return [oneLine((error as Error).message)];
  }
  const sample = TEMPLATE_SAMPLES[code];
  const problems: string[] = [];
  walk(ast as unknown as Node, problems, new Set(Object.keys(sample)), { top: true, blocks: 0, loops: 0 });
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
