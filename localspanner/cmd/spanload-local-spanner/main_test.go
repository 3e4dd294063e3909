package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spanload/spanload/localspanner/storage"
)

// TestSecondServerOnADataDirExitsAtOnce: a server started on a data directory
// that another holds exits 1 before it listens, with one sentence naming the
// directory and the holder's pid.
func TestSecondServerOnADataDirExitsAtOnce(t *testing.T) {
	dir := t.TempDir()
	holder, err := storage.OpenRegistry(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	code := run([]string{"--host", "127.0.0.1", "--port", "0", "--data-dir", dir})
	os.Stderr = stderr
	w.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	want := fmt.Sprintf("spanload-local-spanner: cannot open data directory: %s is in use by another spanload-local-spanner (pid %d); stop it or choose another --data-dir\n", dir, os.Getpid())
	if string(out) != want {
		t.Errorf("stderr:\n got %q\nwant %q", out, want)
	}
}

// TestServerStopsWhenItsStandardInputCloses: with --exit-when-stdin-closes the
// server stops, exit 0, once the write end of its standard input is closed,
// as it is when the process that started it dies however it dies (a parent's
// death signal goes with the thread that started the child, not the process).
func TestServerStopsWhenItsStandardInputCloses(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, stdout := os.Stdin, os.Stdout
	os.Stdin, os.Stdout = inR, outW
	defer func() { os.Stdin, os.Stdout = stdin, stdout }()

	done := make(chan int, 1)
	go func() { done <- run([]string{"--host", "127.0.0.1", "--port", "0", "--exit-when-stdin-closes"}) }()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, " listening on 127.0.0.1:") {
		t.Fatalf("first line %q, want the listening line", line)
	}
	select {
	case code := <-done:
		t.Fatalf("the server exited (%d) while its standard input was open", code)
	default:
	}
	inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
	case <-time.After(30 * time.Second): // a bound on a hang, not a speed check
		t.Fatal("the server still runs 30 s after its standard input closed")
	}
}
