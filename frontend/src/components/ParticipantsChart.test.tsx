import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeSample } from "@/test/fixtures";
import { ParticipantsChart } from "./ParticipantsChart";
import { hasParticipants, participantsRows } from "@/lib/participants";

const server = (participants: number, splits: number) => ({
  "server.commit_participants": participants,
  "server.splits": splits,
  "server.commit_latency_s": participants >= 2 ? 0.006 : 0.003,
  "server.cpu_fraction": 0.042 * participants,
  "server.cpu_per_commit_ms": participants,
});

describe("ParticipantsChart", () => {
  it("picks participants, client and server commit latency and server CPU per sample", () => {
    const samples = [makeSample(0), makeSample(1, { gauges: server(1, 1) }), makeSample(2, { gauges: server(2.5, 4) })];
    const rows = participantsRows(samples);
    expect(rows[0]).toMatchObject({ x: 1, participants: null, server_commit_ms: null, client_ms: 2 });
    expect(rows[1]).toMatchObject({ x: 2, participants: 1, splits: 1, server_commit_ms: 3, cpu_per_commit_ms: 1, client_ms: 3 });
    expect(rows[2]?.cpu_pct).toBeCloseTo(10.5);
    expect(rows[2]?.server_commit_ms).toBeCloseTo(6);
    expect(hasParticipants(rows)).toBe(true);
    expect(hasParticipants(participantsRows([makeSample(0)]))).toBe(false);
  });

  it("says how many participants and splits there are now", () => {
    const rows = participantsRows([makeSample(0, { gauges: server(1, 1) }), makeSample(1, { gauges: server(2.5, 4) }), makeSample(2)]);
    render(<ParticipantsChart rows={rows} />);
    expect(screen.getByTestId("chart-participants").dataset.points).toBe("2");
    expect(screen.getByTestId("participants-latest").textContent).toBe(" now 2.50 participants over 4 splits, commit 6 ms at the server, CPU 10.5 %");
  });
});
