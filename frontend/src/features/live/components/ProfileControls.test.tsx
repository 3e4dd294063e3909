import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { fetchStub } from "@/test/fixtures";
import { ProfileControls } from "./ProfileControls";

describe("ProfileControls", () => {
  it("sends skip, extend with its seconds and hold, and shows where the profile is", async () => {
    const sent: unknown[] = [];
    const answers = [
      { stage: 0, stages: 3, position_s: 12, total_s: 130, rate: 5, abandoned: false, ended: false },
      { stage: 1, stages: 3, position_s: 12, total_s: 100, rate: 20, abandoned: false, ended: false },
      { stage: null, stages: 3, position_s: 13, total_s: 100, rate: 20, abandoned: true, ended: false },
    ];
    vi.stubGlobal(
      "fetch",
      vi.fn(
        fetchStub({
          "POST /runs/r1/profile": (_url, init) => {
            sent.push(JSON.parse(String(init?.body)));
            return { body: answers[sent.length - 1] };
          },
        }),
      ),
    );
    render(<ProfileControls runId="r1" stages={3} enabled />);
    fireEvent.change(screen.getByTestId("profile-extend-seconds"), { target: { value: "30" } });
    fireEvent.click(screen.getByTestId("profile-extend"));
    await waitFor(() => expect(screen.getByTestId("profile-status")).toHaveTextContent("stage 1 of 3, 12 of 130 s, at 5/s"));
    fireEvent.click(screen.getByTestId("profile-skip"));
    await waitFor(() => expect(screen.getByTestId("profile-status")).toHaveTextContent("stage 2 of 3"));
    fireEvent.click(screen.getByTestId("profile-hold"));
    await waitFor(() => expect(screen.getByTestId("profile-status")).toHaveTextContent("abandoned: 20/s holds"));
    expect(sent).toEqual([{ action: "extend", seconds: 30 }, { action: "skip" }, { action: "abandon" }]);
    expect(screen.getByTestId("profile-skip")).toBeDisabled(); // the profile is over
  });

  it("says why the server refused an edit", async () => {
    vi.stubGlobal("fetch", vi.fn(fetchStub({ "POST /runs/r1/profile": () => ({ status: 409, body: { detail: "the run's profile is over: there is no stage to edit" } }) })));
    render(<ProfileControls runId="r1" stages={2} enabled />);
    fireEvent.click(screen.getByTestId("profile-skip"));
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("the run's profile is over: there is no stage to edit"));
  });
});
