package schema

// Dialect is a database's SQL dialect, fixed when the database is created
// (CreateDatabaseRequest.database_dialect).
type Dialect int

// Dialect values.
const (
	GoogleSQL Dialect = iota
	PostgreSQL
)

// String is the dialect's name as the admin API spells it.
func (d Dialect) String() string {
	if d == PostgreSQL {
		return "POSTGRESQL"
	}
	return "GOOGLE_STANDARD_SQL"
}

// ParseDialect reads a name written by Dialect.String.
func ParseDialect(s string) Dialect {
	if s == "POSTGRESQL" {
		return PostgreSQL
	}
	return GoogleSQL
}

// Dialect returns the dialect of the catalog's database (GoogleSQL for a nil catalog).
func (c *Catalog) Dialect() Dialect {
	if c == nil {
		return GoogleSQL
	}
	return c.dialect
}

// WithDialect returns a copy of c (sharing its immutable tables and indexes) for a
// database of dialect d. The statements a catalog is built from are always GoogleSQL:
// a PostgreSQL database's DDL is lowered to GoogleSQL before it is applied (LowerPG).
func (c *Catalog) WithDialect(d Dialect) *Catalog {
	if c.dialect == d {
		return c
	}
	cp := *c
	cp.dialect = d
	return &cp
}
