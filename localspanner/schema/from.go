package schema

// From is the SQLite FROM fragment that yields the rows of one table, every column
// under its Column.SQLName, values in the storage encoding.
type From struct {
	// SQL is a quoted table name or a parenthesised SELECT. The query layer appends
	// " AS <alias>" after it.
	SQL string
	// Indexable is true when SQL is the plain table name t.SQLName: the query layer then
	// appends "INDEXED BY <Index.SQLName>" for a FORCE_INDEX hint, and, when there is no
	// hint, INDEXED BY the table's primary key ("sqlite_autoindex_<name>_1", which
	// requires a WITHOUT ROWID table whose first constraint is PRIMARY KEY (...), as
	// this package renders it), so that no secondary index is used but key lookups still are.
	// (NOT INDEXED does not stop SQLite from using secondary indexes of WITHOUT ROWID
	// tables.) When false, hints are checked (the index must exist) but not applied.
	Indexable bool
}
