// The badge of a run that was changed mid-run (runs list, compare), its changes in the tooltip.
import { describeChanges } from "@/lib/liveChanges";
import type { LiveChange } from "@/lib/types";

export function LiveChangeBadge({ changes, testId }: { changes: readonly LiveChange[] | undefined; testId?: string }) {
  if (!changes?.length) return null;
  return (
    <span className="tag tag-live-changed" title={describeChanges(changes)} data-testid={testId ?? "live-changed"}>
      changed live
    </span>
  );
}
