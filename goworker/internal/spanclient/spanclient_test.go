package spanclient

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/spanload/spanload/goworker/internal/metrics"
)

func TestParseMsReadsIntegerAndFractionalDurations(t *testing.T) {
	cases := []struct {
		value string
		ms    float64
		ok    bool
	}{
		{"gfet4t7; dur=12", 12, true},
		{"gfet4t7; dur=0.385", 0.385, true},
		{"gfet4t7;dur=1234.5, other; dur=9", 1234.5, true},
		{"gfet4t7", 0, false},
		{"dur=", 0, false},
	}
	for _, c := range cases {
		ms, ok := ParseMs(c.value)
		if ms != c.ms || ok != c.ok {
			t.Errorf("ParseMs(%q) = %g, %v; want %g, %v", c.value, ms, ok, c.ms, c.ok)
		}
	}
}

func TestTimingSumsTheRPCsOfOneOperation(t *testing.T) {
	ctx, timing := WithTiming(context.Background())
	if _, ok := timing.Ms(); ok {
		t.Fatal("an operation without RPCs has a server time")
	}
	note(ctx, metadata.Pairs(ServerTimingHeader, "gfet4t7; dur=1.5"))
	note(ctx, metadata.Pairs("other", "dur=100"))
	note(ctx, metadata.Pairs(ServerTimingHeader, "gfet4t7; dur=2"))
	note(context.Background(), metadata.Pairs(ServerTimingHeader, "gfet4t7; dur=50")) // another operation
	// The local server's fine header wins over Spanner's whole milliseconds.
	note(ctx, metadata.Pairs(ServerTimingHeader, "gfet4t7; dur=0", FineTimingHeader, "dur=0.25"))
	if ms, ok := timing.Ms(); !ok || ms != 3.75 {
		t.Errorf("server time %g, %v; want 3.75", ms, ok)
	}
}

func TestPoolCountsInUseIdleAndWaiting(t *testing.T) {
	p := NewPool(2)
	ctx := context.Background()
	for range 2 {
		if err := p.Get(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan error)
	go func() { got <- p.Get(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, _, waiting := p.Gauges(); waiting == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the third Get never waited")
		}
		time.Sleep(time.Millisecond)
	}
	if inUse, idle, waiting := p.Gauges(); inUse != 2 || idle != 0 || waiting != 1 {
		t.Fatalf("gauges %d %d %d; want 2 0 1", inUse, idle, waiting)
	}
	p.Put()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	p.Resize(5)
	if inUse, idle, waiting := p.Gauges(); inUse != 2 || idle != 3 || waiting != 0 {
		t.Errorf("gauges %d %d %d; want 2 3 0", inUse, idle, waiting)
	}
	p.Resize(2)
	short, cancel := context.WithCancel(ctx)
	cancel()
	if err := p.Get(short); !errors.Is(err, context.Canceled) {
		t.Errorf("a Get on a full pool with a cancelled context returned %v", err)
	}
	if metrics.ErrorCode(metrics.ErrSessionPoolTimeout) != metrics.SessionPoolTimeout {
		t.Error("the pool's timeout is not reported as SESSION_POOL_TIMEOUT")
	}
}
