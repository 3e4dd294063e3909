package txn

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spanload/spanload/localspanner/storage"
)

// sessionsFile is where a server with a data directory keeps its sessions, so
// that a restarted server still knows the sessions its clients hold (Cloud
// Spanner keeps a multiplexed session for days; the clients never recreate one).
const sessionsFile = "sessions.json"

type savedSession struct {
	Name        string            `json:"name"`
	Multiplexed bool              `json:"multiplexed,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	CreatorRole string            `json:"creator_role,omitempty"`
	Created     time.Time         `json:"created"`
}

// Persist keeps the sessions in dir from now on, after restoring those saved
// there by an earlier life of the server whose databases still exist.
func (m *Manager) Persist(dir string, database func(name string) (*storage.DB, error)) error {
	path := filepath.Join(dir, sessionsFile)
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read sessions: %w", err)
	}
	var saved []savedSession
	if len(b) > 0 {
		if err := json.Unmarshal(b, &saved); err != nil {
			slog.Warn("ignoring unreadable sessions file", "path", path, "err", err)
			saved = nil
		}
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range saved {
		db, err := database(databaseOf(s.Name))
		if err != nil {
			continue // the database was dropped meanwhile
		}
		m.sessions[s.Name] = &Session{Name: s.Name, DB: db, Multiplexed: s.Multiplexed, Labels: s.Labels, CreatorRole: s.CreatorRole, Created: s.Created, lastUse: now}
	}
	m.sessionsPath = path
	return m.saveLocked()
}

// saveLocked writes every session to the sessions file (m.mu held), through a
// temporary file and a rename so that a crash never leaves half a file.
func (m *Manager) saveLocked() error {
	if m.sessionsPath == "" {
		return nil
	}
	out := make([]savedSession, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, savedSession{Name: s.Name, Multiplexed: s.Multiplexed, Labels: s.Labels, CreatorRole: s.CreatorRole, Created: s.Created})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	b, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("encode sessions: %w", err)
	}
	tmp := m.sessionsPath + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write sessions: %w", err)
	}
	if err := os.Rename(tmp, m.sessionsPath); err != nil {
		return fmt.Errorf("write sessions: %w", err)
	}
	return nil
}

// saved saves the sessions after a change (m.mu held); a failure is logged:
// the sessions stay valid in this life of the server.
func (m *Manager) saved() {
	if err := m.saveLocked(); err != nil {
		slog.Warn("sessions not saved", "err", err)
	}
}

// databaseOf is the database part of a session name.
func databaseOf(session string) string {
	if i := strings.Index(session, "/sessions/"); i >= 0 {
		return session[:i]
	}
	return session
}
