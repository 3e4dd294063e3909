package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// Instance is a Spanner instance: a directory of database files.
type Instance struct {
	Name            string            `json:"name"` // projects/P/instances/I
	Config          string            `json:"config"`
	DisplayName     string            `json:"display_name"`
	NodeCount       int32             `json:"node_count"`
	ProcessingUnits int32             `json:"processing_units"`
	Labels          map[string]string `json:"labels,omitempty"`
	Created         time.Time         `json:"created"`
}

// Registry holds every instance and database, under one data directory.
type Registry struct {
	dir  string
	temp bool
	lock *os.File // the data directory's lock (lock.go), held until Close; nil for a temporary one

	mu        sync.RWMutex
	instances map[string]*Instance
	dbs       map[string]*DB

	// OnOpen, if set, prepares a newly created database before anyone can use it.
	OnOpen func(*DB)
}

// OpenRegistry opens the data directory (creating it) and locks it for this
// process until Close: a directory another server holds is a *DirInUseError.
// With dir == "" the data lives in a temporary directory (in memory where
// /dev/shm exists) removed by Close.
func OpenRegistry(dir string) (*Registry, error) {
	r := &Registry{dir: dir, instances: map[string]*Instance{}, dbs: map[string]*DB{}}
	if dir == "" {
		base := ""
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			base = "/dev/shm"
		}
		removeStaleTempDirs(base)
		tmp, err := os.MkdirTemp(base, fmt.Sprintf("%s%d-", tempPrefix, os.Getpid()))
		if err != nil {
			return nil, fmt.Errorf("create temporary data directory: %w", err)
		}
		r.dir, r.temp = tmp, true
		return r, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	r.lock = lock
	if err := r.load(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// PersistentDir is the data directory, or "" when the data lives in a
// temporary directory that Close removes.
func (r *Registry) PersistentDir() string {
	if r.temp {
		return ""
	}
	return r.dir
}

// tempPrefix starts the name of an in-memory server's data directory, followed
// by the server's process ID.
const tempPrefix = "spanload-local-spanner-"

// removeStaleTempDirs deletes the temporary data directories of servers that
// died without cleaning up (killed), so that memory in /dev/shm is not leaked.
func removeStaleTempDirs(base string) {
	if base == "" {
		base = os.TempDir()
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pid, _, ok := strings.Cut(rest, "-")
		if !ok || pid == "" || strings.Trim(pid, "0123456789") != "" {
			continue
		}
		if _, err := os.Stat("/proc/" + pid); errors.Is(err, os.ErrNotExist) {
			slog.Info("removing the data of a dead in-memory server", "dir", filepath.Join(base, e.Name()))
			_ = os.RemoveAll(filepath.Join(base, e.Name()))
		}
	}
}

func (r *Registry) load() error {
	files, err := filepath.Glob(filepath.Join(r.dir, "projects", "*", "instances", "*", "instance.json"))
	if err != nil {
		return fmt.Errorf("scan data directory: %w", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("read %s: %w", f, err)
		}
		var in Instance
		if err := json.Unmarshal(b, &in); err != nil {
			return fmt.Errorf("parse %s: %w", f, err)
		}
		r.instances[in.Name] = &in
		dbFiles, err := filepath.Glob(filepath.Join(filepath.Dir(f), "databases", "*.sqlite"))
		if err != nil {
			return fmt.Errorf("scan %s: %w", f, err)
		}
		for _, df := range dbFiles {
			name := in.Name + "/databases/" + strings.TrimSuffix(filepath.Base(df), ".sqlite")
			db, err := Open(name, df)
			if err != nil {
				return fmt.Errorf("open database %s: %w", name, err)
			}
			r.dbs[name] = db
		}
	}
	slog.Info("loaded data directory", "dir", r.dir, "instances", len(r.instances), "databases", len(r.dbs))
	return nil
}

// Close closes every database and removes a temporary data directory.
func (r *Registry) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, db := range r.dbs {
		db.Close()
	}
	r.dbs = map[string]*DB{}
	if r.temp {
		_ = os.RemoveAll(r.dir)
	}
	if r.lock != nil {
		_ = r.lock.Close() // releases the lock
		r.lock = nil
	}
}

func (r *Registry) instanceDir(name string) string {
	return filepath.Join(r.dir, filepath.FromSlash(name))
}

// CreateInstance creates an instance.
func (r *Registry) CreateInstance(in *Instance) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.instances[in.Name]; ok {
		return spanerr.AlreadyExists("Instance already exists: %s", in.Name)
	}
	in.Created = time.Now().UTC()
	dir := r.instanceDir(in.Name)
	if err := os.MkdirAll(filepath.Join(dir, "databases"), 0o755); err != nil {
		return fmt.Errorf("create instance directory: %w", err)
	}
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return fmt.Errorf("encode instance: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "instance.json"), b, 0o644); err != nil {
		return fmt.Errorf("write instance: %w", err)
	}
	r.instances[in.Name] = in
	return nil
}

// Instance returns an instance by name.
func (r *Registry) Instance(name string) (*Instance, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	in, ok := r.instances[name]
	if !ok {
		return nil, spanerr.NotFound("Instance not found: %s", name)
	}
	return in, nil
}

// Instances lists the instances of a project ("projects/P"), by name.
func (r *Registry) Instances(project string) []*Instance {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*Instance
	for n, in := range r.instances {
		if strings.HasPrefix(n, project+"/instances/") {
			out = append(out, in)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DeleteInstance deletes an instance and its databases; it returns the dropped databases.
func (r *Registry) DeleteInstance(name string) ([]*DB, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.instances[name]; !ok {
		return nil, spanerr.NotFound("Instance not found: %s", name)
	}
	var dropped []*DB
	for n, db := range r.dbs {
		if strings.HasPrefix(n, name+"/databases/") {
			db.Close()
			dropped = append(dropped, db)
			delete(r.dbs, n)
		}
	}
	delete(r.instances, name)
	if err := os.RemoveAll(r.instanceDir(name)); err != nil {
		return dropped, fmt.Errorf("remove instance directory: %w", err)
	}
	return dropped, nil
}

// UpdateInstance replaces an instance's metadata.
func (r *Registry) UpdateInstance(in *Instance) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.instances[in.Name]; !ok {
		return spanerr.NotFound("Instance not found: %s", in.Name)
	}
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return fmt.Errorf("encode instance: %w", err)
	}
	if err := os.WriteFile(filepath.Join(r.instanceDir(in.Name), "instance.json"), b, 0o644); err != nil {
		return fmt.Errorf("write instance: %w", err)
	}
	r.instances[in.Name] = in
	return nil
}

// CreateDatabase creates an empty database (name projects/P/instances/I/databases/D).
func (r *Registry) CreateDatabase(name string) (*DB, error) {
	inst, id, ok := strings.Cut(name, "/databases/")
	if !ok || id == "" || strings.ContainsAny(id, "/.") {
		return nil, spanerr.InvalidArgument("Invalid database name: %s", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.instances[inst]; !ok {
		return nil, spanerr.NotFound("Instance not found: %s", inst)
	}
	if _, ok := r.dbs[name]; ok {
		return nil, spanerr.AlreadyExists("Database already exists: %s", name)
	}
	path := filepath.Join(r.instanceDir(inst), "databases", id+".sqlite")
	if _, err := os.Stat(path); err == nil {
		return nil, spanerr.AlreadyExists("Database already exists: %s", name)
	}
	db, err := Open(name, path)
	if err != nil {
		return nil, err
	}
	if r.OnOpen != nil {
		r.OnOpen(db)
	}
	r.dbs[name] = db
	return db, nil
}

// Database returns a database by name. A name not of the form
// projects/P/instances/I/databases/D is an invalid argument, as in Spanner.
func (r *Registry) Database(name string) (*DB, error) {
	if !IsDatabaseName(name) {
		return nil, spanerr.InvalidArgument("Invalid database uri: %s", name)
	}
	r.mu.RLock()
	db, ok := r.dbs[name]
	r.mu.RUnlock()
	if !ok {
		return nil, spanerr.NotFound("Database not found: %s", name)
	}
	return db, nil
}

// Databases lists the databases of an instance, by name.
func (r *Registry) Databases(instance string) ([]*DB, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if _, ok := r.instances[instance]; !ok {
		return nil, spanerr.NotFound("Instance not found: %s", instance)
	}
	var out []*DB
	for n, db := range r.dbs {
		if strings.HasPrefix(n, instance+"/databases/") {
			out = append(out, db)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// AllDatabases lists every open database.
func (r *Registry) AllDatabases() []*DB {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*DB, 0, len(r.dbs))
	for _, db := range r.dbs {
		out = append(out, db)
	}
	return out
}

// DropDatabase closes and deletes a database.
func (r *Registry) DropDatabase(name string) (*DB, error) {
	r.mu.Lock()
	db, ok := r.dbs[name]
	delete(r.dbs, name)
	r.mu.Unlock()
	if !ok {
		return nil, spanerr.NotFound("Database not found: %s", name)
	}
	if err := db.Remove(); err != nil && !errors.Is(err, os.ErrNotExist) {
		return db, err
	}
	return db, nil
}
