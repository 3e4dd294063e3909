import { describe, expect, it } from "vitest";
import { statusEvent, targetEvent } from "@/test/fixtures";
import { initialLiveState, liveReducer } from "./liveState";

describe("liveReducer", () => {
  it("puts the target's outage on the live timeline once, however often it is sent", () => {
    const running = { ...initialLiveState, events: [statusEvent(0, "running")] };
    const down = targetEvent(5, false, { reason: "local Spanner was killed by SIGKILL" });
    const once = liveReducer(running, { type: "event", event: down });
    expect(once.events.map((e) => e.kind)).toEqual(["status", "target_down"]);
    expect(liveReducer(once, { type: "event", event: down })).toBe(once);
    const back = liveReducer(once, { type: "event", event: targetEvent(7, true) });
    expect(back.events.map((e) => e.kind)).toEqual(["status", "target_down", "target_up"]);
  });
});
