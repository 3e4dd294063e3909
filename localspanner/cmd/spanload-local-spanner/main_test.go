package main

import (
	"fmt"
	"io"
	"os"
	"testing"

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
