// Package txn holds sessions and transactions: read-only snapshots at a read
// timestamp, and read-write transactions that buffer their writes and validate
// their reads at commit (optimistic, serializable; the loser is ABORTED).
package txn

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/storage"
)

// IdleTimeout is how long an unused transaction lives before it is discarded.
const IdleTimeout = 2 * time.Minute

// SessionIdleTimeout is how long an unused regular session lives.
const SessionIdleTimeout = 60 * time.Minute

// MultiplexedLifetime is how long a multiplexed session lives from its creation,
// used or not, as in Cloud Spanner (clients replace theirs every 7 days). Every
// client process creates one, so without an end they pile up run after run.
const MultiplexedLifetime = 30 * 24 * time.Hour

// Session is a Spanner session on one database.
type Session struct {
	Name        string
	DB          *storage.DB
	Multiplexed bool
	Labels      map[string]string
	CreatorRole string
	Created     time.Time

	mu      sync.Mutex
	lastUse time.Time
}

// Touch records a use of the session.
func (s *Session) Touch() {
	s.mu.Lock()
	s.lastUse = time.Now()
	s.mu.Unlock()
}

// LastUse is when the session was last used.
func (s *Session) LastUse() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastUse
}

// Manager owns every session and transaction of the server.
type Manager struct {
	mu        sync.Mutex
	sessions  map[string]*Session
	txns      map[string]*Txn
	conflicts map[*storage.DB]*conflicts
	knees     map[*storage.DB]*kneeMeter // the commits each database's synthetic knee counts
	// dropped names the databases dropped since start: their sessions answer
	// "Database not found", as Spanner's do, which clients treat as fatal
	// ("Session not found" they retry for a long time).
	dropped map[string]bool

	// sessionsPath, when set (Persist), is the file that keeps the sessions across restarts.
	sessionsPath string

	// OnCommit, if set, is called after every commit attempt (for statistics).
	OnCommit func(db *storage.DB, c CommitStat)
	// OnLockConflict, if set, is called for each commit a conflict aborted.
	OnLockConflict func(db *storage.DB, c LockConflict)
}

// CommitStat describes one commit attempt.
type CommitStat struct {
	Shape     string // what the transaction read and wrote (its statistics row)
	Tag       string // the transaction tag ("" for none)
	Committed bool
	Aborted   bool
	// Participants are the splits the commit touched (0 when it did not commit);
	// ModelCPU the CPU the latency model charged it.
	Participants int
	ModelCPU     time.Duration
	// CommitDur is how long the commit took (latency model included), TotalDur
	// how long the transaction lived.
	CommitDur, TotalDur time.Duration
}

// NewManager returns an empty manager.
func NewManager() *Manager {
	return &Manager{sessions: map[string]*Session{}, txns: map[string]*Txn{}, conflicts: map[*storage.DB]*conflicts{}, knees: map[*storage.DB]*kneeMeter{}, dropped: map[string]bool{}}
}

func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// CreateSession creates a session on db (named dbName).
func (m *Manager) CreateSession(db *storage.DB, dbName string, multiplexed bool, labels map[string]string, role string) *Session {
	return m.CreateSessions(db, dbName, 1, multiplexed, labels, role)[0]
}

// CreateSessions creates n sessions on db (named dbName), saved at once.
func (m *Manager) CreateSessions(db *storage.DB, dbName string, n int, multiplexed bool, labels map[string]string, role string) []*Session {
	now := time.Now()
	out := make([]*Session, n)
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.dropped, dbName)
	for i := range out {
		s := &Session{Name: dbName + "/sessions/" + randomID(12), DB: db, Multiplexed: multiplexed, Labels: labels, CreatorRole: role, Created: now, lastUse: now}
		m.sessions[s.Name] = s
		out[i] = s
	}
	m.saved()
	return out
}

// Session returns the session with the given name.
func (m *Manager) Session(name string) (*Session, error) {
	if !storage.IsSessionName(name) {
		return nil, spanerr.InvalidArgument("Invalid session uri: %s", name)
	}
	m.mu.Lock()
	s, ok := m.sessions[name]
	dbName, _, _ := strings.Cut(name, "/sessions/")
	dropped := m.dropped[dbName]
	m.mu.Unlock()
	if !ok && dropped {
		return nil, spanerr.NotFound("Database not found: %s", dbName)
	}
	if !ok {
		return nil, spanerr.NotFound("Session not found: %s", name)
	}
	s.Touch()
	return s, nil
}

// DeleteSession deletes a session and its transactions.
func (m *Manager) DeleteSession(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sessions[name]; !ok {
		return spanerr.NotFound("Session not found: %s", name)
	}
	delete(m.sessions, name)
	for id, t := range m.txns {
		if t.Session.Name == name {
			delete(m.txns, id)
		}
	}
	m.saved()
	return nil
}

// Sessions lists the sessions of a database, by name.
func (m *Manager) Sessions(db *storage.DB) []*Session {
	m.mu.Lock()
	var out []*Session
	for _, s := range m.sessions {
		if s.DB == db {
			out = append(out, s)
		}
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DropDatabase forgets every session and transaction of db.
func (m *Manager) DropDatabase(db *storage.DB) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropped[db.Name] = true
	for n, s := range m.sessions {
		if s.DB == db {
			delete(m.sessions, n)
		}
	}
	m.saved()
	for id, t := range m.txns {
		if t.DB == db {
			delete(m.txns, id)
		}
	}
	delete(m.conflicts, db)
	delete(m.knees, db)
}

func (m *Manager) kneeOf(db *storage.DB) *kneeMeter {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.knees[db]
	if !ok {
		k = &kneeMeter{}
		m.knees[db] = k
	}
	return k
}

func (m *Manager) conflictsOf(db *storage.DB) *conflicts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.conflicts[db]
	if !ok {
		c = newConflicts()
		m.conflicts[db] = c
	}
	return c
}

// Janitor discards idle transactions and sessions and prunes conflict records
// every interval until ctx ends.
func (m *Manager) Janitor(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			m.sweep(time.Now())
		}
	}
}

func (m *Manager) sweep(now time.Time) {
	m.mu.Lock()
	oldest := map[*storage.DB]int64{}
	for id, t := range m.txns {
		if now.Sub(t.LastUse()) > IdleTimeout {
			slog.Debug("discarding idle transaction", "session", t.Session.Name)
			t.discard()
			delete(m.txns, id)
			continue
		}
		if s := t.minReadSeq(); s > 0 {
			if o, ok := oldest[t.DB]; !ok || s < o {
				oldest[t.DB] = s
			}
		}
	}
	expired := false
	for n, s := range m.sessions {
		if (!s.Multiplexed && now.Sub(s.LastUse()) > SessionIdleTimeout) || (s.Multiplexed && now.Sub(s.Created) > MultiplexedLifetime) {
			delete(m.sessions, n)
			expired = true
		}
	}
	if expired {
		m.saved()
	}
	dbs := make(map[*storage.DB]*conflicts, len(m.conflicts))
	for db, c := range m.conflicts {
		dbs[db] = c
	}
	m.mu.Unlock()
	for db, c := range dbs {
		o, ok := oldest[db]
		if !ok {
			o = db.LastCommit()
		}
		c.prune(o)
	}
}
