package frontend

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/spanload/spanload/localspanner/schema"
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

// TestDatabaseReportsItsRetentionPeriod: GetDatabase shows the period ALTER DATABASE
// set, not Spanner's default, and the earliest version time follows that period.
func TestDatabaseReportsItsRetentionPeriod(t *testing.T) {
	db, err := storage.Open("projects/p/instances/i/databases/d", filepath.Join(t.TempDir(), "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if got := databasePB(db).VersionRetentionPeriod; got != "1h" {
		t.Fatalf("default period %q, want 1h", got)
	}
	ddl := "ALTER DATABASE d SET OPTIONS (version_retention_period = '3d')"
	if _, err := db.ApplyDDL(context.Background(), []string{ddl}, schema.Compilers{}); err != nil {
		t.Fatal(err)
	}
	if got := databasePB(db).VersionRetentionPeriod; got != "3d" {
		t.Fatalf("period %q after ALTER DATABASE, want 3d", got)
	}
	now := db.Created.Add(100 * time.Hour)
	if got, want := earliestVersion(db, now), now.Add(-72*time.Hour); !got.Equal(want) {
		t.Fatalf("earliest version time %s, want %s", got, want)
	}
}
