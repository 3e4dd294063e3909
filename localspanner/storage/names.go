package storage

import "strings"

// IsDatabaseName reports whether name has the form projects/P/instances/I/databases/D.
func IsDatabaseName(name string) bool {
	return hasShape(name, "projects", "instances", "databases")
}

// IsSessionName reports whether name has the form
// projects/P/instances/I/databases/D/sessions/S.
func IsSessionName(name string) bool {
	return hasShape(name, "projects", "instances", "databases", "sessions")
}

// hasShape reports whether name is collection/id pairs with these collections, every id non-empty.
func hasShape(name string, collections ...string) bool {
	parts := strings.Split(name, "/")
	if len(parts) != 2*len(collections) {
		return false
	}
	for i, c := range collections {
		if parts[2*i] != c || parts[2*i+1] == "" {
			return false
		}
	}
	return true
}
