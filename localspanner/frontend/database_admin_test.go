package frontend

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/spanload/spanload/localspanner/storage"
)

// TestEarliestVersionTime: a database's versions are readable back to its version
// retention period ago (1 h by default), or to its creation when that is later.
func TestEarliestVersionTime(t *testing.T) {
	db, err := storage.Open("projects/p/instances/i/databases/d", filepath.Join(t.TempDir(), "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	later := db.Created.Add(5 * time.Hour)
	for _, tc := range []struct {
		name      string
		now, want time.Time
	}{
		{"younger than the period", db.Created.Add(20 * time.Minute), db.Created},
		{"older than the period", later, later.Add(-time.Hour)},
	} {
		if got := earliestVersion(db, tc.now); !got.Equal(tc.want) {
			t.Fatalf("%s: earliest version time %s, want %s", tc.name, got, tc.want)
		}
	}
}
