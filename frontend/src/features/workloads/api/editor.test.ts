import { Text } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { problemDiagnostics } from "./diagnostics";
import { keysAt, pathAbove, type SchemaNode } from "./schemaCompletion";

const SCHEMA: SchemaNode = {
  properties: { name: {}, knobs: { additionalProperties: { $ref: "#/$defs/Knob" } }, operations: { additionalProperties: { $ref: "#/$defs/Operation" } } },
  $defs: {
    Knob: { properties: { default: {}, min: {}, max: {}, live: { description: "may change while the run goes on" } } },
    Operation: { properties: { rate: {}, steps: { items: { anyOf: [{ $ref: "#/$defs/Sql" }, { $ref: "#/$defs/Insert" }] } } } },
    Sql: { properties: { sql: {}, params: {}, bind: {} } },
    Insert: { properties: { insert: { $ref: "#/$defs/Mutation" } } },
    Mutation: { properties: { table: {}, columns: {}, rows: {} } },
  },
};

describe("the definition editor", () => {
  it("places a problem from its column to the end of its line", () => {
    const doc = Text.of(["name: x", "operations:", "  write:", "    rate: $nope"]);
    const [d] = problemDiagnostics(doc, [{ path: "operations.write.rate", line: 4, column: 11, message: "unknown knob" }]);
    expect(d && doc.sliceString(d.from, d.to)).toBe("$nope");
    expect(d?.message).toBe("operations.write.rate: unknown knob");
    // A problem without a place goes on the first line.
    expect(problemDiagnostics(doc, [{ path: "", line: null, column: null, message: "empty" }])[0]).toMatchObject({ from: 0, to: 7 });
  });

  it("completes the keys the schema has at the cursor's path, through maps, lists and refs", () => {
    const lines = ["knobs:", "  rate:", "    ", "operations:", "  write:", "    steps:", "      - sql: SELECT 1", "        ", "      - insert:", "          "];
    expect(pathAbove(lines, 3, 4)).toEqual(["knobs", "rate"]);
    expect(keysAt(SCHEMA, ["knobs", "rate"]).map((k) => k.key)).toEqual(["default", "min", "max", "live"]);
    expect(keysAt(SCHEMA, ["knobs", "rate"]).find((k) => k.key === "live")?.help).toBe("may change while the run goes on");
    expect(pathAbove(lines, 8, 8)).toEqual(["operations", "write", "steps"]);
    expect(keysAt(SCHEMA, ["operations", "write", "steps"]).map((k) => k.key)).toEqual(["sql", "params", "bind", "insert"]);
    expect(pathAbove(lines, 10, 10)).toEqual(["operations", "write", "steps", "insert"]);
    expect(keysAt(SCHEMA, pathAbove(lines, 10, 10)).map((k) => k.key)).toEqual(["table", "columns", "rows"]);
    expect(keysAt(SCHEMA, []).map((k) => k.key)).toEqual(["name", "knobs", "operations"]);
  });
});
