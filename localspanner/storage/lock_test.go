package storage

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDataDirLock: a data directory is opened by one registry at a time; the
// second is refused at once, naming the directory and the holder's pid, and
// the directory opens again once the holder closed it.
func TestDataDirLock(t *testing.T) {
	dir := t.TempDir()
	first, err := OpenRegistry(dir)
	if err != nil {
		t.Fatal(err)
	}
	second, err := OpenRegistry(dir)
	var inUse *DirInUseError
	if !errors.As(err, &inUse) {
		if second != nil {
			second.Close()
		}
		first.Close()
		t.Fatalf("second open of %s: got %v, want a *DirInUseError", dir, err)
	}
	if inUse.Dir != dir || inUse.PID != os.Getpid() {
		t.Errorf("in use: dir %q pid %d, want %q pid %d", inUse.Dir, inUse.PID, dir, os.Getpid())
	}
	want := fmt.Sprintf("%s is in use by another spanload-local-spanner (pid %d); stop it or choose another --data-dir", dir, os.Getpid())
	if err.Error() != want {
		t.Errorf("message:\n got %q\nwant %q", err.Error(), want)
	}
	first.Close()
	third, err := OpenRegistry(dir)
	if err != nil {
		t.Fatalf("open after the holder closed it: %v", err)
	}
	third.Close()
}

// TestTemporaryDirsAreNotShared: in-memory registries each get their own
// directory, so any number of them open side by side.
func TestTemporaryDirsAreNotShared(t *testing.T) {
	a, err := OpenRegistry("")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenRegistry("")
	if err != nil {
		t.Fatalf("a second in-memory registry: %v", err)
	}
	b.Close()
}

// lockHolderEnv makes the test binary, run as a child, hold the lock of the
// directory it names until it is killed (see TestDataDirLockDiesWithItsHolder).
const lockHolderEnv = "SPANLOAD_TEST_HOLD_LOCK_OF"

func TestMain(m *testing.M) {
	if dir := os.Getenv(lockHolderEnv); dir != "" {
		if _, err := OpenRegistry(dir); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		select {} // until killed: nothing closes the registry
	}
	os.Exit(m.Run())
}

// TestDataDirLockDiesWithItsHolder: a server killed without closing anything
// (SIGKILL, as a crash) leaves its directory free for the restart that follows.
func TestDataDirLockDiesWithItsHolder(t *testing.T) {
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), lockHolderEnv+"="+dir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		t.Fatalf("the child did not take the lock: %q, %v", line, err)
	}

	_, err = OpenRegistry(dir)
	var inUse *DirInUseError
	if !errors.As(err, &inUse) || inUse.PID != child.Process.Pid {
		t.Fatalf("open while the child holds it: got %v, want in use by pid %d", err, child.Process.Pid)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait() // reaped: the kernel has released its lock
	reg, err := OpenRegistry(dir)
	if err != nil {
		t.Fatalf("open after the holder was killed: %v", err)
	}
	reg.Close()
}
