// Package schema turns Spanner DDL (parsed by memefish) into a catalog of tables,
// columns and indexes, and the catalog into SQLite DDL. The query layer reads the
// catalog; it never parses DDL itself.
//
// Storage encoding, shared by every layer (one SQLite column per Spanner column):
//
//	INT64, ENUM        INTEGER
//	FLOAT64, FLOAT32   REAL; NaN is stored as the TEXT 'NaN' (SQLite turns a NaN REAL into NULL)
//	BOOL               INTEGER 0 or 1
//	STRING             TEXT
//	BYTES              BLOB
//	TIMESTAMP          TEXT, fixed width UTC 'YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ' (sorts as time does)
//	DATE               TEXT 'YYYY-MM-DD'
//	NUMERIC            TEXT, canonical decimal
//	JSON               TEXT, normalized
//	ARRAY<T>           TEXT, a JSON array of the element encodings above (BYTES as base64)
//	NULL               NULL
package schema

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
)

// Catalog is the schema of one database. It is immutable once built: a DDL change
// builds a new Catalog, so readers may hold one without locks.
type Catalog struct {
	Tables  []*Table // in creation order
	Indexes []*Index // in creation order
	Views   []*View  // in creation order
	// ChangeStreams are the change streams, in creation order.
	ChangeStreams []*ChangeStream
	byTable       map[string]*Table // lower-cased name
	byIndex       map[string]*Index // lower-cased name
	byView        map[string]*View  // lower-cased name
	// options are the ALTER DATABASE options (lower-cased name), dbName the database
	// name the last ALTER DATABASE statement gave.
	options map[string]DatabaseOption
	dbName  string
	protos  *ProtoBundle
	dialect Dialect
}

// Table is one Spanner table.
type Table struct {
	Name       string
	Columns    []*Column
	PrimaryKey []KeyPart
	Parent     *Table // INTERLEAVE IN PARENT, nil at the top level
	OnDelete   OnDelete
	Indexes    []*Index
	// Checks and ForeignKeys are the table's CHECK and FOREIGN KEY constraints.
	Checks      []*Check
	ForeignKeys []*ForeignKey
	// RowDeletionPolicy is nil when the table has none.
	RowDeletionPolicy *RowDeletionPolicy
	// SQLName is the quoted SQLite table name that holds the current rows.
	SQLName string
	byCol   map[string]*Column
}

// OnDelete is the action on child rows when a parent row is deleted.
type OnDelete int

// OnDelete values.
const (
	NoAction OnDelete = iota
	Cascade
)

// Column is one column of a table.
type Column struct {
	Name                 string
	Type                 *spannerpb.Type
	Length               int64 // declared length of STRING(n)/BYTES(n); 0 for MAX
	NotNull              bool
	AllowCommitTimestamp bool
	// Default and Generated hold the expression's GoogleSQL text, or "".
	Default   string
	Generated string
	Stored    bool
	// SQLName is the quoted SQLite column name.
	SQLName string
	// Position is 0-based in Table.Columns.
	Position int
}

// KeyPart is one column of a key, with its sort order.
type KeyPart struct {
	Column *Column
	Desc   bool
}

// Index is a secondary index.
type Index struct {
	Name         string
	Table        *Table
	Keys         []KeyPart
	Storing      []*Column
	Unique       bool
	NullFiltered bool
	Interleave   *Table // INTERLEAVE IN, or nil
	// SQLName is the quoted SQLite index name, or of the table that backs it.
	SQLName string
}

// Table returns the table with the given name (case-insensitive, as Spanner matches names).
func (c *Catalog) Table(name string) (*Table, bool) {
	t, ok := c.byTable[strings.ToLower(name)]
	return t, ok
}

// Index returns the index with the given name (case-insensitive).
func (c *Catalog) Index(name string) (*Index, bool) {
	ix, ok := c.byIndex[strings.ToLower(name)]
	return ix, ok
}

// Column returns the column with the given name (case-insensitive).
func (t *Table) Column(name string) (*Column, bool) {
	col, ok := t.byCol[strings.ToLower(name)]
	return col, ok
}

// IsKey reports whether c is one of t's primary key columns.
func (t *Table) IsKey(c *Column) bool {
	for _, k := range t.PrimaryKey {
		if k.Column == c {
			return true
		}
	}
	return false
}
