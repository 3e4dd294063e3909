// Completion of a definition's keys from its JSON Schema: the keys written above the cursor, each
// less indented than the last, are the path from the top ("operations", "place_order", "steps");
// the schema at that path offers its properties. Maps (knobs, values, operations) take any name.
import type { CompletionContext, CompletionResult, CompletionSource } from "@codemirror/autocomplete";

export interface SchemaNode {
  $ref?: string;
  $defs?: Record<string, SchemaNode>;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  description?: string;
}

/** The schemas a node stands for: its $ref followed, its anyOf/oneOf branches spread. */
function branches(root: SchemaNode, node: SchemaNode | undefined): SchemaNode[] {
  if (!node) return [];
  if (node.$ref) return branches(root, root.$defs?.[node.$ref.split("/").pop() ?? ""]);
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives) return alternatives.flatMap((b) => branches(root, b));
  return [node];
}

/** One step down by key: a property, a map's value, or (for a list) an item's. */
function child(root: SchemaNode, nodes: readonly SchemaNode[], key: string): SchemaNode[] {
  return nodes.flatMap((n) => {
    const each = n.items ? branches(root, n.items) : [n];
    return each.flatMap((m) => {
      const prop = m.properties?.[key];
      if (prop) return branches(root, prop);
      return typeof m.additionalProperties === "object" ? branches(root, m.additionalProperties) : [];
    });
  });
}

/** The keys written above line `lineNo` (1-based) that enclose a key indented `indent`, from the top. */
export function pathAbove(lines: readonly string[], lineNo: number, indent: number): string[] {
  const path: string[] = [];
  let limit = indent;
  for (let i = lineNo - 2; i >= 0 && limit > 0; i--) {
    const m = /^(\s*)(-\s+)?([A-Za-z_]\w*)\s*:/.exec(lines[i] ?? "");
    if (!m) continue;
    const at = (m[1] ?? "").length;
    const keyAt = at + (m[2] ?? "").length;
    if (keyAt < limit) {
      path.unshift(m[3] ?? "");
      limit = at; // "- insert:" opens a list item too, which the key above holds
    } else if (m[2] && at < limit) {
      limit = at; // a sibling key of the cursor's, in the list item that holds it
    }
  }
  return path;
}

/** The properties the schema offers at a path, with their descriptions. */
export function keysAt(root: SchemaNode, path: readonly string[]): { key: string; help?: string }[] {
  let nodes = branches(root, root);
  for (const key of path) nodes = child(root, nodes, key);
  const seen = new Map<string, string | undefined>();
  for (const n of nodes.flatMap((m) => (m.items ? branches(root, m.items) : [m]))) {
    for (const [key, prop] of Object.entries(n.properties ?? {})) if (!seen.has(key)) seen.set(key, prop.description);
  }
  return [...seen].map(([key, help]) => ({ key, help }));
}

export function schemaCompletion(schema: SchemaNode): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const line = context.state.doc.lineAt(context.pos);
    const before = line.text.slice(0, context.pos - line.from);
    const m = /^(\s*)(-\s+)?([A-Za-z_]\w*)?$/.exec(before);
    if (!m) return null;
    const word = m[3] ?? "";
    if (!word && !context.explicit) return null;
    const indent = (m[1] ?? "").length + (m[2] ?? "").length;
    const lines = context.state.doc.toString().split("\n");
    const options = keysAt(schema, pathAbove(lines, line.number, indent)).map(({ key, help }) => ({ label: key, type: "property", detail: help, apply: `${key}: ` }));
    return options.length ? { from: context.pos - word.length, options, validFor: /^\w*$/ } : null;
  };
}
