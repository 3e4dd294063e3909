import { describe, expect, it } from "vitest";
import { changeLabel, DEFAULT_CONFIG, diffPatch, KNOB_BY_PATH, knobsFrom, SCHEMAS, type Schemas, sectionUsed, setPath, validateConfig, validateKnob } from "./knobs";

const knob = (path: string) => {
  const k = KNOB_BY_PATH.get(path);
  if (!k) throw new Error(path);
  return k;
};

describe("changeLabel", () => {
  it("names a fixed field by its short form, a definition's knob by its name, an operation's pacing by its path", () => {
    expect(changeLabel({ "updater.transactions_per_second": 20 })).toBe("tx/s=20");
    expect(changeLabel({ "knobs.transactions_per_second": 20, "knobs.table_hint": false })).toBe("transactions_per_second=20, table_hint=off");
    expect(changeLabel({ "operations.write.rate": 2.5 })).toBe("operations.write.rate=2.5");
  });
});

describe("validateKnob", () => {
  it("mirrors the pydantic ranges, with the unit in the sentence", () => {
    const tps = knob("updater.transactions_per_second");
    expect(validateKnob(tps, 0)).toBe("Write rate must be more than 0 tx/s.");
    expect(validateKnob(tps, 0.1)).toBeNull();
    expect(validateKnob(tps, 100_001)).toBe("Write rate must be at most 100,000 tx/s.");
    expect(validateKnob(knob("watcher.poll_interval_ms"), 5)).toBe("Poll interval must be at least 10 ms.");
    expect(validateKnob(knob("watcher.watchers"), 38)).toBe("Watchers must be at most 37 watchers.");
  });

  it("rejects fractions for whole-number knobs, empty required fields and non-numbers", () => {
    expect(validateKnob(knob("updater.mutations_per_transaction"), 2.5)).toBe("Mutations per tx must be a whole number.");
    expect(validateKnob(knob("watcher.limit"), "")).toBe("Row limit is required.");
    expect(validateKnob(knob("watcher.limit"), "abc")).toBe("Row limit must be a number.");
    expect(validateKnob(knob("duration_s"), null)).toBeNull();
    expect(validateKnob(knob("watcher.shard_filter"), "some")).toBe("Shard filter must be one of fixed, not_null, none.");
  });
});

describe("validateConfig", () => {
  it("accepts the defaults", () => {
    expect(validateConfig(DEFAULT_CONFIG)).toEqual({});
  });

  it("leaves rules that tie fields together to the server", () => {
    // Each field is within its bounds; the server refuses the pair and names the field (NewRunPage.test).
    let config = setPath(DEFAULT_CONFIG, "watcher.shard_filter", "none");
    config = setPath(config, "watcher.watchers", 4);
    expect(validateConfig(config)).toEqual({});
    expect(validateConfig(setPath(DEFAULT_CONFIG, "target.kind", "emulator"))).toEqual({});
  });
});

describe("diffPatch", () => {
  it("gives only the live fields that changed, nested like ConfigPatch", () => {
    let next = setPath(DEFAULT_CONFIG, "updater.transactions_per_second", 20);
    next = setPath(next, "watcher.table_hint", false);
    next = setPath(next, "workload", "write_benchmark"); // not live: never in a patch
    expect(diffPatch(DEFAULT_CONFIG, next)).toEqual({ updater: { transactions_per_second: 20 }, watcher: { table_hint: false } });
    expect(diffPatch(DEFAULT_CONFIG, DEFAULT_CONFIG)).toEqual({});
  });
});

describe("workloads", () => {
  it("shows each workload its own sections", () => {
    const sections = ["run", "target", "tpcc", "updater", "watcher", "reader", "client"] as const;
    expect(sections.filter((s) => sectionUsed(s, "tpcc"))).toEqual(["run", "target", "tpcc", "client"]);
    expect(sections.filter((s) => sectionUsed(s, "session_pool"))).toEqual(["run", "target", "updater", "watcher", "reader", "client"]);
    expect(sections.filter((s) => sectionUsed(s, "definition"))).toEqual(["run", "target", "client"]);
  });
});

describe("knobs from the OpenAPI schema", () => {
  it("takes each knob's type, range, options and liveness from the backend's schema", () => {
    const pick = (path: string) => {
      const { kind, min, minExclusive, max, options, live, optional } = knob(path);
      return { kind, min, minExclusive, max, options, live, optional };
    };
    expect(pick("updater.transactions_per_second")).toEqual({ kind: "float", min: 0, minExclusive: true, max: 100_000, options: undefined, live: true, optional: false });
    expect(pick("watcher.watchers")).toEqual({ kind: "int", min: 1, minExclusive: undefined, max: 37, options: undefined, live: true, optional: false });
    expect(pick("updater.mode")).toEqual({ kind: "enum", min: undefined, minExclusive: undefined, max: undefined, options: ["mutations", "dml", "batch_insert"], live: true, optional: false });
    expect(pick("duration_s")).toEqual({ kind: "float", min: 0, minExclusive: true, max: 604_800, options: undefined, live: true, optional: true });
    expect(pick("name")).toEqual({ kind: "text", min: undefined, minExclusive: undefined, max: 200, options: undefined, live: false, optional: true });
    // target, schema and processes are fixed once a run starts: ConfigPatch has no such field.
    expect(["target.kind", "workload", "processes", "report_interval_s", "tpcc.warehouses", "preload.rows"].map((p) => knob(p).live)).toEqual([false, false, false, false, false, false]);
    expect(["tpcc.terminals", "tpcc.transactions_per_second"].map((p) => knob(p).live)).toEqual([true, true]);
    // The help is the field's description in the schema, as a sentence.
    expect(knob("watcher.limit").help).toBe("Rows per poll; a full page re-polls at once.");
    // A slider without its own max ends at the schema's bound.
    expect(knob("watcher.watchers").slider).toEqual({ min: 1, max: 37, step: 1 });
  });

  it("builds the default config from the schema's defaults", () => {
    expect(DEFAULT_CONFIG).toEqual({
      name: null,
      preset: null,
      target: { kind: "local", emulator_host: null, project: "spanload", instance: "spanload", database: "spanload", latency_model: "none", commit_knee: null },
      duration_s: null,
      warmup_s: 0,
      workload: "change_watcher",
      processes: 1,
      report_interval_s: 1,
      runtime: "python",
      placement: null, // the server's default placement (SPANLOAD_RAY_ADDRESS or local)
      preload: { rows: 0 },
      updater: { enabled: true, transactions_per_second: 1, mutations_per_transaction: 5, parallelism: 8, mode: "mutations", batch_rows: 6, key_space: 100_000 },
      watcher: { enabled: true, watchers: 1, poll_interval_ms: 1000, limit: 10_000, table_hint: true, shard_filter: "fixed" },
      reader: { enabled: false, reads_per_second: 10, concurrency: 4, think_time_ms: 0, query: "point", staleness_s: 0 },
      client: { interface: "googlesql", pgadapter_host: null, multiplexed_sessions: true, session_pool_size: 100, timeout_ms: 5000 },
      tpcc: { warehouses: 1, mode: "closed", terminals: 8, transactions_per_second: 50, keying_think_times: false, items: 100_000, customers_per_district: 3000 },
      definition: null, // a workload definition's run carries it (with knobs and operations, which default to {})
      definition_origin: null, // where that definition came from (a saved one's name and version)
      seed: null, // drawn by the server when the run is created
      create_schema: false,
      profile: null, // no load profile: the rates are the config's
      capacity: null, // not a capacity search
    });
  });
});

describe("knob words from the schema", () => {
  const words = (k: { label: string; short: string; unit?: string | undefined }) => ({ label: k.label, short: k.short, unit: k.unit });
  const poll = (schemas: Schemas) => knobsFrom(schemas, [{ path: "watcher.poll_interval_ms", section: "watcher" }])[0];

  it("reads a field's label, chart short form and unit from its x-label, x-short and x-unit", () => {
    expect(words(knob("watcher.poll_interval_ms"))).toEqual({ label: "Poll interval", short: "poll", unit: "ms" });
    expect(words(knob("updater.parallelism"))).toEqual({ label: "Updater parallelism", short: "par", unit: "in flight" });
    expect(words(knob("workload"))).toEqual({ label: "Workload", short: "workload", unit: undefined });
  });

  it("follows the schema: another schema, other words", () => {
    const schemas = structuredClone(SCHEMAS);
    const field = schemas.WatcherConfig?.properties?.poll_interval_ms;
    if (!field) throw new Error("WatcherConfig.poll_interval_ms is not in the schema");
    Object.assign(field, { "x-label": "Pause between polls", "x-short": "gap", "x-unit": "s" });
    const changed = poll(schemas);
    if (!changed) throw new Error("no knob");
    expect(words(changed)).toEqual({ label: "Pause between polls", short: "gap", unit: "s" });
    expect(validateKnob(changed, 5)).toBe("Pause between polls must be at least 10 s.");
  });

  it("refuses a shown field without words, naming it", () => {
    const schemas = structuredClone(SCHEMAS);
    delete schemas.WatcherConfig?.properties?.poll_interval_ms?.["x-label"];
    expect(() => poll(schemas)).toThrow("RunConfig.watcher.poll_interval_ms has no x-label or x-short");
  });
});
