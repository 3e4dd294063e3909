package storage

import "testing"

func TestNameShapes(t *testing.T) {
	for _, c := range []struct {
		name        string
		db, session bool
	}{
		{"projects/p/instances/i/databases/d", true, false},
		{"projects/p/instances/i/databases/d/sessions/s", false, true},
		{"", false, false},
		{"projects/p/instances/i/databases/", false, false},
		{"projects/p/instances/i/databases/d/sessions/", false, false},
		{"projects/p/instances/i/tables/d", false, false},
	} {
		if got := IsDatabaseName(c.name); got != c.db {
			t.Errorf("IsDatabaseName(%q) = %v, want %v", c.name, got, c.db)
		}
		if got := IsSessionName(c.name); got != c.session {
			t.Errorf("IsSessionName(%q) = %v, want %v", c.name, got, c.session)
		}
	}
}

func TestDatabaseRejectsAnInvalidName(t *testing.T) {
	r := &Registry{dbs: map[string]*DB{}}
	_, err := r.Database("")
	if err == nil || err.Error() != "Invalid database uri: " {
		t.Fatalf("Database(\"\") = %v, want the emulator's \"Invalid database uri: \"", err)
	}
}
