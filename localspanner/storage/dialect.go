package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/spanload/spanload/localspanner/schema"
)

// The dialect is kept in _spanload_meta (key 'dialect'), beside the creation time, so
// that it survives restarts like the rest of the database's metadata. A database
// without the key is GoogleSQL (every database written before dialects existed).

// Dialect returns the database's SQL dialect.
func (d *DB) Dialect() schema.Dialect { return d.Catalog().Dialect() }

// SetDialect records the dialect of a new database (CreateDatabase does this before
// any DDL runs).
func (d *DB) SetDialect(ctx context.Context, dialect schema.Dialect) error {
	d.commitMu.Lock()
	defer d.commitMu.Unlock()
	if _, err := d.writer.ExecContext(ctx, "INSERT OR REPLACE INTO _spanload_meta VALUES ('dialect', ?)", dialect.String()); err != nil {
		return fmt.Errorf("record dialect: %w", err)
	}
	d.cat.Store(d.Catalog().WithDialect(dialect))
	return nil
}

// loadDialect gives cat the dialect recorded for the database.
func (d *DB) loadDialect(ctx context.Context, cat *schema.Catalog) (*schema.Catalog, error) {
	var v string
	err := d.writer.QueryRowContext(ctx, "SELECT v FROM _spanload_meta WHERE k='dialect'").Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return cat, nil
	case err != nil:
		return nil, fmt.Errorf("load dialect: %w", err)
	}
	return cat.WithDialect(schema.ParseDialect(v)), nil
}
