package worker

// The test harness of the protocol end to end: the real local Spanner, and a peer playing the
// supervisor (definition_e2e_test.go runs definitions with them).

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spanload/spanload/goworker/internal/metrics"
)

// localSpanner is the repository's local Spanner, built by `make install`.
const localSpanner = "../../../.venv/bin/spanload-local-spanner"

func startLocalSpanner(t *testing.T) string {
	t.Helper()
	exe, _ := filepath.Abs(localSpanner)
	if _, err := os.Stat(exe); err != nil {
		if testing.Short() {
			t.Skip("no local Spanner binary")
		}
		t.Fatalf("no local Spanner at %s (`make install` builds it): %v", exe, err)
	}
	cmd := exec.Command(exe, "--host", "127.0.0.1", "--port", "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if _, addr, ok := strings.Cut(lines.Text(), " listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return strings.TrimSpace(addr)
		}
	}
	t.Fatal("the local Spanner never said where it listens")
	return ""
}

// peer plays the supervisor: it writes control lines and reads the worker's messages.
type peer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
}

func (p *peer) send(line string) {
	if _, err := p.in.Write([]byte(line + "\n")); err != nil {
		p.t.Fatal(err)
	}
}

// next is the next message of a type, skipping others (reports) into skipped. It fails the test, so
// only the test's goroutine calls it; other goroutines call nextErr.
func (p *peer) next(kind string, skipped *[]map[string]any) map[string]any {
	m, err := p.nextErr(kind, skipped)
	if err != nil {
		p.t.Fatal(err)
	}
	return m
}

// nextErr is next, with what went wrong returned instead of failing the test.
func (p *peer) nextErr(kind string, skipped *[]map[string]any) (map[string]any, error) {
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				return nil, fmt.Errorf("the worker ended before a %s message", kind)
			}
			if m["type"] == kind {
				return m, nil
			}
			if m["type"] == "error" {
				return nil, fmt.Errorf("the worker reported an error: %v", m)
			}
			if skipped != nil {
				*skipped = append(*skipped, m)
			}
		case <-timeout:
			return nil, fmt.Errorf("no %s message within 60 s", kind)
		}
	}
}

func rows(m map[string]any, field string) map[int64][2]int64 {
	out := map[int64][2]int64{}
	for _, r := range m[field].([]any) {
		row := r.([]any)
		out[int64(row[0].(float64))] = [2]int64{int64(row[1].(float64)), int64(row[2].(float64))}
	}
	return out
}

func sumCounter(reports []map[string]any, name string) int64 {
	var n int64
	for _, r := range reports {
		if v, ok := r["counters"].(map[string]any)[name]; ok {
			n += int64(v.(float64))
		}
	}
	return n
}

func histogramCount(t *testing.T, reports []map[string]any, op string) int64 {
	var n int64
	for _, r := range reports {
		if text, ok := r["hdr"].(map[string]any)[op]; ok {
			h, err := metrics.Decode(text.(string))
			if err != nil {
				t.Fatal(err)
			}
			n += h.TotalCount()
		}
	}
	return n
}
