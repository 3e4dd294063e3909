package interp

import (
	"errors"
	"testing"
	"time"
)

func TestDrainRetriesAFailingTargetUntilItAnswers(t *testing.T) {
	unavailable := errors.New("UNAVAILABLE: connection refused")
	results := []error{unavailable, unavailable, unavailable, nil}
	pages := []bool{false, false, false, true, false} // one full page after recovery, then the last
	calls := 0
	poll := func() (bool, error) {
		i := calls
		calls++
		if i < len(results) && results[i] != nil {
			return false, results[i]
		}
		return pages[i], nil
	}
	if err := drainWith(poll, time.Minute, time.Millisecond, "watch-0"); err != nil {
		t.Fatalf("drain failed: %v", err)
	}
	if calls != 5 {
		t.Fatalf("polled %d times, want 5 (3 failures, a full page, the last page)", calls)
	}
}

func TestDrainGivesUpAfterItsLimitNamingTheLastError(t *testing.T) {
	last := errors.New("NOT_FOUND: Database not found")
	calls := 0
	poll := func() (bool, error) { calls++; return false, last }
	err := drainWith(poll, 30*time.Millisecond, 5*time.Millisecond, "watch-1")
	want := "watch-1: the final drain failed for 0 s; last error: NOT_FOUND: Database not found"
	if err == nil || err.Error() != want || !errors.Is(err, last) {
		t.Fatalf("err = %v, want %q wrapping the last error", err, want)
	}
	if calls < 2 {
		t.Fatalf("polled %d times: it must retry until the limit", calls)
	}
}
