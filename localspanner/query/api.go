// Package query compiles GoogleSQL (parsed by memefish) into SQLite SQL over the
// storage encoding defined in package schema. It never rewrites SQL text: it walks
// the memefish AST and prints SQLite SQL from it. A PostgreSQL-dialect database's
// statements are parsed by PostgreSQL's parser (pg_query_go) and their trees lowered
// into memefish trees first (pg_parse.go); the compiler after that is the same.
//
// The contract with the rest of the server (exec runs the plans; storage, txn):
//
//   - Compile / CompileDML turn one statement into a Plan / DMLPlan. Plans are cached
//     by (catalog, SQL text, parameter types, Source.Key()), so a repeated query costs
//     a map lookup plus binding its parameters.
//   - Plan.SQL uses only NAMED SQLite parameters. Plan.Args holds sql.NamedArg values
//     whose names start with "qp" (reserved for this package). A Source fragment may use
//     other named parameters (e.g. ":read_ts"); the caller appends their sql.Named args.
//     With go-sqlite3 pass Args straight to Query/Exec (database/sql or driver conn).
//   - Result cells are in the storage encoding; Plan.Decode turns a scanned row
//     (int64, float64, string, []byte, nil as go-sqlite3 returns them) into wire values.
//   - sqlfn.Register must run on every SQLite connection (ConnectHook) before any
//     compiled SQL, generated column or DEFAULT produced here runs on it: the compiled
//     SQL calls the sp_* functions that package sqlfn implements.
//   - Errors are *spanerr.Error values carrying a gRPC code (the frontend maps them to
//     a status in one place). Errors raised by SQL functions while a statement runs
//     (INT64 overflow, division by zero, bad casts) come back from SQLite as plain
//     errors: pass them through sqlfn.RuntimeError to get the *spanerr.Error with
//     Spanner's code.
//   - SPANNER_SYS.<name> resolves through Source.SysTable (the stats layer owns those
//     tables); INFORMATION_SCHEMA.TABLES, COLUMNS, INDEXES, INDEX_COLUMNS and VIEWS are
//     built by this package from the catalog.
//   - A view (schema.View) named in FROM is inlined: its query is compiled in place, in a
//     scope of its own. ViewColumns is the schema.ViewCompiler that checks views on DDL.
//
// Supported GoogleSQL subset:
//
//   - Queries: SELECT [DISTINCT] with *, t.*, expressions and aliases; FROM tables
//     (with @{FORCE_INDEX=...}), SPANNER_SYS and INFORMATION_SCHEMA tables, sub-queries,
//     implicit UNNEST of array columns (FROM t, t.arr),
//     UNNEST(array) [WITH OFFSET], [INNER|CROSS|LEFT|RIGHT|FULL] JOIN with ON/USING and
//     comma joins; WHERE; GROUP BY (names, aliases, ordinals) with Spanner's
//     "neither grouped nor aggregated" check; HAVING; ORDER BY (ASC/DESC, aliases,
//     ordinals); LIMIT/OFFSET with literals or parameters; WITH (CTEs); UNION ALL/
//     DISTINCT, INTERSECT DISTINCT, EXCEPT DISTINCT; scalar, ARRAY, EXISTS and IN
//     sub-queries; SELECT without FROM; SELECT AS STRUCT / AS VALUE.
//   - Expressions: literals of every scalar type and arrays; typed and untyped
//     parameters; comparison, AND/OR/NOT, IN (list | UNNEST | sub-query), BETWEEN,
//     LIKE (case-sensitive, backslash escapes), IS [NOT] NULL/TRUE/FALSE, + - * with
//     INT64 overflow errors, / (FLOAT64, or NUMERIC), || , bit operators, CASE, IF,
//     COALESCE, IFNULL, NULLIF, CAST and SAFE_CAST, EXTRACT, array[OFFSET/ORDINAL/
//     SAFE_OFFSET/SAFE_ORDINAL]; STRUCT values: (a, b), STRUCT(...), STRUCT<...>(...),
//     STRUCT parameters and ARRAY<STRUCT> results, field access s.f, = / != / IN
//     (e.g. (a, b) IN UNNEST(@keys)), UNNEST of an ARRAY<STRUCT> as a value table (a
//     column per field, the alias naming the STRUCT), s.* and CAST to another STRUCT.
//   - FLOAT64/FLOAT32 NaN and infinities as GoogleSQL has them: NaN equals nothing (=, IN),
//     orders first after NULL, makes MIN/MAX/SUM/AVG and math functions NaN (floats.go).
//   - Functions: COUNT, COUNTIF, SUM, AVG, MIN, MAX, ANY_VALUE, LOGICAL_AND/OR,
//     STRING_AGG, ARRAY_AGG; MOD, DIV, ABS, SIGN, GREATEST, LEAST, ROUND, TRUNC, CEIL,
//     FLOOR, SQRT, POW, EXP, LN, LOG, LOG10; CONCAT, LOWER, UPPER, LENGTH,
//     CHAR_LENGTH, BYTE_LENGTH, SUBSTR, STRPOS, STARTS_WITH, ENDS_WITH, REPLACE, TRIM,
//     LTRIM, RTRIM, REPEAT, REVERSE, LPAD, RPAD, SPLIT, REGEXP_CONTAINS/EXTRACT/REPLACE,
//     FARM_FINGERPRINT, IS_NAN, IS_INF, IEEE_DIVIDE, SHA1, SHA256, SHA512, MD5, TO_HEX, TO_BASE64, FROM_BASE64,
//     ARRAY_LENGTH, JSON_VALUE, JSON_QUERY, GENERATE_UUID, NEW_UUID (UUID type), ERROR; CURRENT_TIMESTAMP,
//     CURRENT_DATE, TIMESTAMP_ADD/SUB/DIFF/TRUNC, DATE_ADD/SUB/DIFF, UNIX_SECONDS/
//     MILLIS/MICROS, TIMESTAMP_SECONDS/MILLIS/MICROS, TIMESTAMP(), DATE(),
//     PENDING_COMMIT_TIMESTAMP (DML only).
//   - The SAFE. prefix on scalar functions: NULL where the function itself fails
//     (sqlfn's NULL-instead-of-error twins; errors in arguments still surface).
//   - DML: INSERT [OR UPDATE|OR IGNORE] ... VALUES | SELECT, UPDATE ... SET, DELETE,
//     each with THEN RETURN [WITH ACTION [AS alias]] (INSERT OR UPDATE returns an
//     updated row's unlisted columns as they were).
//
// Not supported (UNIMPLEMENTED naming the construct and its line:column): ordering
// comparisons of STRUCTs, SELECT AS <type>, pipe syntax, TABLESAMPLE, INSERT ... ON
// CONFLICT, graph queries and TVFs.
package query

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/schema"
)

// Param is one query parameter as sent on the wire. Type is nil for an untyped
// parameter: its type is then inferred from the context it is used in (as Spanner
// does: an untyped string compared with an INT64 column is read as INT64), or from
// the value's kind when the context says nothing.
type Param struct {
	Value *structpb.Value
	Type  *spannerpb.Type
}

// Params maps parameter names (without '@', case-sensitive as on the wire) to values.
type Params map[string]Param

// Source tells the query layer where the rows it reads come from, so that the same
// compiled statement runs as a strong read (current rows), a stale read (a SELECT over
// version history), or inside a read-write transaction (current rows plus buffered
// writes). C implements it; CurrentRows is the trivial implementation.
type Source interface {
	// Table returns the rows of t visible to this read.
	Table(t *schema.Table) (schema.From, error)
	// SysTable resolves SPANNER_SYS.<name> (name upper-cased, without the prefix),
	// e.g. "QUERY_STATS_TOP_MINUTE". It returns the table's columns (Name, Type and
	// SQLName are used; PrimaryKey may be empty) and its FROM fragment. An unknown
	// name returns ok=false and the query fails with INVALID_ARGUMENT "Table not found".
	SysTable(name string) (t *schema.Table, from schema.From, ok bool)
	// Key identifies the shape of the fragments this Source returns, for the plan
	// cache: two Sources with equal Keys must return identical fragments for every
	// table (put read timestamps in named parameters, not in the fragment text).
	Key() string
}

// Plan is a compiled query.
type Plan struct {
	// SQL is the SQLite statement.
	SQL string
	// Args are the bound parameters, all sql.NamedArg.
	Args []any
	// Fields are the result columns with their Spanner types (ResultSetMetadata.row_type).
	// They are shared by every plan of the same cached template: read, never modify.
	Fields []*spannerpb.StructType_Field
	// Tables and Indexes are the user tables and indexes the query reads (for stats and
	// for read-write transactions' lock sets). Indexes only lists FORCE_INDEX targets.
	Tables  []*schema.Table
	Indexes []*schema.Index

	tmpl      *template
	scanToken int64
}

// Decode converts one SQLite result row (as scanned: int64, float64, string, []byte or
// nil) to wire values in the order of Fields.
func (p *Plan) Decode(row []any) ([]*structpb.Value, error) {
	return p.tmpl.decode(row)
}

// DMLKind says which statement a DMLPlan came from.
type DMLKind int

// DMLKind values.
const (
	DMLInsert DMLKind = iota + 1
	DMLUpdate
	DMLDelete
	// DMLInsertOrUpdate is INSERT OR UPDATE: rows as for DMLInsert, written with
	// insert_or_update semantics (an existing row gets the listed columns updated).
	DMLInsertOrUpdate
	// DMLInsertOrIgnore is INSERT OR IGNORE: rows as for DMLInsert; a row whose key
	// exists is skipped (not counted in the row count).
	DMLInsertOrIgnore
)

// CommitTimestampMarker is the storage-encoded TIMESTAMP cell that DML rows carry where
// the statement wrote PENDING_COMMIT_TIMESTAMP(). It is the same string as the
// mutation sentinel on the wire; replace it with the commit timestamp at commit.
const CommitTimestampMarker = "spanner.commit_timestamp()"

// DMLPlan is a compiled INSERT, UPDATE or DELETE. Running SQL (with Args) yields one row
// per row to write; the caller turns the rows into buffered mutations.
//
//   - Insert (and InsertOrUpdate, InsertOrIgnore): one row per inserted row; cells are the values of Columns, which are the
//     columns the statement lists (the caller fills DEFAULTs / generated columns for the
//     others, or lets SQLite do it). Insert semantics: a row whose key exists is
//     ALREADY_EXISTS (the caller checks, as for an insert mutation).
//   - Update: one row per matched row; Columns are the primary key columns followed by
//     the SET columns, cells are the key and the NEW values.
//   - Delete: one row per matched row; Columns are the primary key columns.
//
// Cells are in the storage encoding (CommitTimestampMarker for PENDING_COMMIT_TIMESTAMP()).
// When the statement has THEN RETURN, each row carries len(Returning) further cells
// after the len(Columns) cells above, already computed on the row as it will be
// written (after the update, or before the delete); DecodeReturning turns them into
// wire values.
type DMLPlan struct {
	Kind      DMLKind
	Table     *schema.Table
	Columns   []*schema.Column
	SQL       string
	Args      []any
	Returning []*spannerpb.StructType_Field

	tmpl *dmlTemplate
}

// DecodeReturning converts the THEN RETURN cells (row[len(Columns):]) to wire values.
func (p *DMLPlan) DecodeReturning(row []any) ([]*structpb.Value, error) {
	return p.tmpl.decodeReturning(row)
}

// Compile compiles a query (SELECT ...) for the given catalog and parameters.
func Compile(cat *schema.Catalog, sql string, params Params, src Source) (*Plan, error) {
	return compileQuery(cat, sql, params, src)
}

// CompileDML compiles an INSERT, UPDATE or DELETE (with optional THEN RETURN).
func CompileDML(cat *schema.Catalog, sql string, params Params, src Source) (*DMLPlan, error) {
	return compileDML(cat, sql, params, src)
}

// CompileColumnExpr compiles a column's generated-column or DEFAULT expression
// (GoogleSQL text, as in schema.Column.Generated/Default) into an SQLite expression over
// t's columns (referenced by their bare SQLName) and returns the expression's type.
// The result is usable inside SQLite's GENERATED ALWAYS AS (...) STORED and DEFAULT
// (...): every function it calls is registered as deterministic by sqlfn.Register.
// Supported: literals, column references, arithmetic, MOD, DIV, FARM_FINGERPRINT,
// CAST, string functions, COALESCE/IF/IFNULL/CASE; PENDING_COMMIT_TIMESTAMP() is not
// allowed here (Spanner forbids it too), CURRENT_TIMESTAMP() is rejected as not
// deterministic.
func CompileColumnExpr(t *schema.Table, exprSQL string) (sqlExpr string, typ *spannerpb.Type, err error) {
	return compileColumnExpr(t, exprSQL)
}

// CurrentRows is the Source of a strong read outside a read-write transaction: every
// table is read from its SQLite table of current rows, hints applied. It knows no
// SPANNER_SYS tables.
type CurrentRows struct{}

// Table implements Source.
func (CurrentRows) Table(t *schema.Table) (schema.From, error) {
	return schema.From{SQL: t.SQLName, Indexable: true}, nil
}

// SysTable implements Source.
func (CurrentRows) SysTable(string) (*schema.Table, schema.From, bool) {
	return nil, schema.From{}, false
}

// Key implements Source.
func (CurrentRows) Key() string { return "current" }
