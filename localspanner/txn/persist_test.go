package txn

import (
	"path/filepath"
	"testing"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/storage"
	"google.golang.org/grpc/codes"
)

// A restarted server on the same data directory knows the sessions its clients
// hold, and not the ones they deleted or the ones of a dropped database.
func TestSessionsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	const name = "projects/p/instances/i/databases/d"
	db, err := storage.Open(name, filepath.Join(dir, "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	lookup := func(n string) (*storage.DB, error) {
		if n != name {
			return nil, spanerr.NotFound("Database not found: %s", n)
		}
		return db, nil
	}

	first := NewManager()
	if err := first.Persist(dir, lookup); err != nil {
		t.Fatal(err)
	}
	mux := first.CreateSession(db, name, true, map[string]string{"k": "v"}, "role")
	pooled := first.CreateSessions(db, name, 3, false, nil, "")
	if err := first.DeleteSession(pooled[1].Name); err != nil {
		t.Fatal(err)
	}
	first.CreateSession(db, "projects/p/instances/i/databases/gone", false, nil, "")

	second := NewManager()
	if err := second.Persist(dir, lookup); err != nil {
		t.Fatal(err)
	}
	got, err := second.Session(mux.Name)
	if err != nil {
		t.Fatalf("the multiplexed session is unknown after the restart: %v", err)
	}
	if !got.Multiplexed || got.Labels["k"] != "v" || got.CreatorRole != "role" || got.DB != db || !got.Created.Equal(mux.Created) {
		t.Fatalf("restored session differs: %+v", got)
	}
	for i, want := range []bool{true, false, true} {
		_, err := second.Session(pooled[i].Name)
		if (err == nil) != want {
			t.Fatalf("pooled session %d: found=%v, want %v", i, err == nil, want)
		}
		if err != nil && spanerr.Code(err, codes.Unknown) != codes.NotFound {
			t.Fatalf("a deleted session answers %v, want NOT_FOUND", err)
		}
	}
	if n := len(second.Sessions(db)); n != 3 {
		t.Fatalf("%d sessions restored on the database, want 3 (the multiplexed and 2 pooled)", n)
	}
}
