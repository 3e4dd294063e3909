package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockFileName is the file in a data directory that its server holds an
// exclusive flock on while it runs, with the server's process ID as content.
// The kernel releases the lock when the process ends, however it ends, so a
// server restarted after a crash opens the directory again at once.
const LockFileName = "spanload-local-spanner.lock"

// DirInUseError is the error of opening a data directory that another server
// holds: two servers on one directory would each write its SQLite files and
// session journal behind the other's back.
type DirInUseError struct {
	Dir string
	PID int // the holder's process ID; 0 when it had not written it yet
}

func (e *DirInUseError) Error() string {
	holder := "another spanload-local-spanner"
	if e.PID > 0 {
		holder += fmt.Sprintf(" (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is in use by %s; stop it or choose another --data-dir", e.Dir, holder)
}

// lockDir takes the data directory's lock, or returns a *DirInUseError naming
// its holder. Closing the returned file releases the lock.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &DirInUseError{Dir: dir, PID: lockHolder(path)}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("write lock file %s: %w", path, err)
	}
	return f, nil
}

// lockHolder is the process ID in a lock file; 0 if it cannot be read.
func lockHolder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}
