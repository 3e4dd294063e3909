package query

import (
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/schema"
)

// infoTable is an INFORMATION_SCHEMA table built from the catalog: column names and
// types, and its rows as SQL literals.
type infoTable struct {
	cols  []string
	types []*spannerpb.Type
	rows  [][]string
}

func (it *infoTable) add(cells ...string) { it.rows = append(it.rows, cells) }

func lit(s string) string { return sqlString(s) }

func litBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func litNullable(s string) string {
	if s == "" {
		return "NULL"
	}
	return lit(s)
}

func newInfoTable(spec ...any) *infoTable {
	it := &infoTable{}
	for i := 0; i < len(spec); i += 2 {
		it.cols = append(it.cols, spec[i].(string))
		it.types = append(it.types, spec[i+1].(*spannerpb.Type))
	}
	return it
}

// informationSchema builds the named INFORMATION_SCHEMA table (TABLES, COLUMNS,
// INDEXES, INDEX_COLUMNS) of the user tables in cat.
func informationSchema(cat *schema.Catalog, name string) (*infoTable, bool) {
	switch name {
	case "TABLES":
		it := newInfoTable("TABLE_CATALOG", tString, "TABLE_SCHEMA", tString, "TABLE_NAME", tString, "TABLE_TYPE", tString,
			"PARENT_TABLE_NAME", tString, "ON_DELETE_ACTION", tString, "SPANNER_STATE", tString, "INTERLEAVE_TYPE", tString,
			"ROW_DELETION_POLICY_EXPRESSION", tString)
		for _, t := range cat.Tables {
			parent, onDelete, interleave := "", "", ""
			if t.Parent != nil {
				parent, interleave, onDelete = t.Parent.Name, "IN PARENT", "NO ACTION"
				if t.OnDelete == schema.Cascade {
					onDelete = "CASCADE"
				}
			}
			rdp := ""
			if t.RowDeletionPolicy != nil {
				rdp = t.RowDeletionPolicy.Expression()
			}
			it.add(lit(""), lit(""), lit(t.Name), lit("BASE TABLE"), litNullable(parent), litNullable(onDelete), lit("COMMITTED"), litNullable(interleave), litNullable(rdp))
		}
		for _, v := range cat.Views {
			it.add(lit(""), lit(""), lit(v.Name), lit("VIEW"), "NULL", "NULL", "NULL", "NULL", "NULL")
		}
		return it, true
	case "SCHEMATA":
		// GoogleSQL: the default schema is named '' and the catalog is ''; a PostgreSQL database has
		// public (the '' here, renamed by pgInfoSchema), information_schema, pg_catalog and
		// spanner_sys. The clients tell the dialect from it (the Java client's, which PGAdapter uses:
		// SCHEMA_NAME='information_schema' only on PostgreSQL).
		it := newInfoTable("CATALOG_NAME", tString, "SCHEMA_NAME", tString)
		names := []string{"", "INFORMATION_SCHEMA", "SPANNER_SYS"}
		if cat.Dialect() == schema.PostgreSQL {
			names = []string{"", "information_schema", "pg_catalog", "spanner_sys"}
		}
		for _, n := range names {
			it.add(lit(""), lit(n))
		}
		return it, true
	case "CHECK_CONSTRAINTS", "TABLE_CONSTRAINTS", "REFERENTIAL_CONSTRAINTS":
		return constraintTables(cat, name), true
	case "DATABASE_OPTIONS":
		it := newInfoTable("CATALOG_NAME", tString, "SCHEMA_NAME", tString, "OPTION_NAME", tString,
			"OPTION_TYPE", tString, "OPTION_VALUE", tString)
		// database_dialect is always there (Spanner's docs: GOOGLE_STANDARD_SQL or POSTGRESQL): the
		// Java client, and so PGAdapter, reads the dialect from it and refuses a PostgreSQL database
		// that does not say it.
		dialect := "GOOGLE_STANDARD_SQL"
		if cat.Dialect() == schema.PostgreSQL {
			dialect = "POSTGRESQL"
		}
		it.add(lit(""), lit(""), lit("database_dialect"), lit("STRING"), lit(dialect))
		for _, o := range cat.Options() {
			it.add(lit(""), lit(""), lit(o.Name), lit(o.Type), lit(o.Value))
		}
		return it, true
	case "CHANGE_STREAMS", "CHANGE_STREAM_TABLES", "CHANGE_STREAM_COLUMNS", "CHANGE_STREAM_OPTIONS":
		return changeStreamTables(cat, name), true
	case "VIEWS":
		it := newInfoTable("TABLE_CATALOG", tString, "TABLE_SCHEMA", tString, "TABLE_NAME", tString,
			"VIEW_DEFINITION", tString, "SECURITY_TYPE", tString)
		for _, v := range cat.Views {
			it.add(lit(""), lit(""), lit(v.Name), lit(v.Body), lit(v.Security))
		}
		return it, true
	case "COLUMNS":
		it := newInfoTable("TABLE_CATALOG", tString, "TABLE_SCHEMA", tString, "TABLE_NAME", tString, "COLUMN_NAME", tString,
			"ORDINAL_POSITION", tInt64, "COLUMN_DEFAULT", tString, "IS_NULLABLE", tString, "SPANNER_TYPE", tString,
			"IS_GENERATED", tString, "GENERATION_EXPRESSION", tString, "IS_STORED", tString, "SPANNER_STATE", tString)
		for _, t := range cat.Tables {
			for _, col := range t.Columns {
				nullable, generated, stored := "YES", "NEVER", ""
				if col.NotNull {
					nullable = "NO"
				}
				if col.Generated != "" {
					generated, stored = "ALWAYS", "NO"
					if col.Stored {
						stored = "YES"
					}
				}
				it.add(lit(""), lit(""), lit(t.Name), lit(col.Name), strconv.Itoa(col.Position+1), litNullable(col.Default), lit(nullable),
					lit(schema.TypeDDL(col.Type, col.Length)), lit(generated), litNullable(col.Generated), litNullable(stored), lit("COMMITTED"))
			}
		}
		for _, v := range cat.Views {
			cols, err := ViewColumns(cat, v)
			if err != nil {
				continue // a view that no longer compiles has no columns to show
			}
			for i, col := range cols {
				it.add(lit(""), lit(""), lit(v.Name), lit(col.Name), strconv.Itoa(i+1), "NULL", lit("YES"),
					lit(schema.TypeDDL(col.Type, 0)), lit("NEVER"), "NULL", "NULL", lit("COMMITTED"))
			}
		}
		return it, true
	case "INDEXES":
		it := newInfoTable("TABLE_CATALOG", tString, "TABLE_SCHEMA", tString, "TABLE_NAME", tString, "INDEX_NAME", tString,
			"INDEX_TYPE", tString, "PARENT_TABLE_NAME", tString, "IS_UNIQUE", tBool, "IS_NULL_FILTERED", tBool,
			"INDEX_STATE", tString, "SPANNER_IS_MANAGED", tBool)
		for _, t := range cat.Tables {
			it.add(lit(""), lit(""), lit(t.Name), lit("PRIMARY_KEY"), lit("PRIMARY_KEY"), lit(""), "1", "0", "NULL", "0")
		}
		for _, ix := range cat.Indexes {
			parent := ""
			if ix.Interleave != nil {
				parent = ix.Interleave.Name
			}
			it.add(lit(""), lit(""), lit(ix.Table.Name), lit(ix.Name), lit("INDEX"), lit(parent), litBool(ix.Unique), litBool(ix.NullFiltered), lit("READ_WRITE"), "0")
		}
		return it, true
	case "INDEX_COLUMNS":
		it := newInfoTable("TABLE_CATALOG", tString, "TABLE_SCHEMA", tString, "TABLE_NAME", tString, "INDEX_NAME", tString,
			"INDEX_TYPE", tString, "COLUMN_NAME", tString, "ORDINAL_POSITION", tInt64, "COLUMN_ORDERING", tString,
			"IS_NULLABLE", tString, "SPANNER_TYPE", tString)
		addKeys := func(t *schema.Table, index, typ string, keys []schema.KeyPart, storing []*schema.Column) {
			for i, k := range keys {
				order := "ASC"
				if k.Desc {
					order = "DESC"
				}
				it.add(lit(""), lit(""), lit(t.Name), lit(index), lit(typ), lit(k.Column.Name), strconv.Itoa(i+1), lit(order),
					lit(map[bool]string{true: "NO", false: "YES"}[k.Column.NotNull]), lit(schema.TypeDDL(k.Column.Type, k.Column.Length)))
			}
			for _, col := range storing {
				it.add(lit(""), lit(""), lit(t.Name), lit(index), lit(typ), lit(col.Name), "NULL", "NULL",
					lit(map[bool]string{true: "NO", false: "YES"}[col.NotNull]), lit(schema.TypeDDL(col.Type, col.Length)))
			}
		}
		for _, t := range cat.Tables {
			addKeys(t, "PRIMARY_KEY", "PRIMARY_KEY", t.PrimaryKey, nil)
		}
		for _, ix := range cat.Indexes {
			addKeys(ix.Table, ix.Name, "INDEX", ix.Keys, ix.Storing)
		}
		return it, true
	}
	return nil, false
}

func (c *compiler) infoSchemaTable(x *ast.PathTableExpr, sc *scope) (string, error) {
	name := upper(x.Path.Idents[1].Name)
	it, ok := informationSchema(c.cat, name)
	if !ok {
		return "", c.unsupported(x, "INFORMATION_SCHEMA."+name)
	}
	if c.cat.Dialect() == schema.PostgreSQL {
		pgInfoSchema(it)
	}
	var b strings.Builder
	b.WriteString("(")
	if len(it.rows) == 0 {
		b.WriteString("SELECT ")
		for i := range it.cols {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("NULL AS " + outName(i))
		}
		b.WriteString(" WHERE 0")
	}
	for r, row := range it.rows {
		if r > 0 {
			b.WriteString(" UNION ALL ")
		}
		b.WriteString("SELECT ")
		for i, cell := range row {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(cell + " AS " + outName(i))
		}
	}
	b.WriteString(")")
	alias := name
	if x.As != nil {
		alias = x.As.Alias.Name
	}
	fields := make([]field, len(it.cols))
	for i, col := range it.cols {
		fields[i] = field{col, it.types[i]}
	}
	return b.String() + " AS " + c.addFieldsRel(sc, alias, fields), nil
}

// constraintTables builds CHECK_CONSTRAINTS, TABLE_CONSTRAINTS and REFERENTIAL_CONSTRAINTS:
// a table's primary key (PK_<table>), its NOT NULL columns (CK_IS_NOT_NULL_<table>_<column>,
// "<column> IS NOT NULL"), its CHECK and FOREIGN KEY constraints.
func constraintTables(cat *schema.Catalog, name string) *infoTable {
	checks := newInfoTable("CONSTRAINT_CATALOG", tString, "CONSTRAINT_SCHEMA", tString, "CONSTRAINT_NAME", tString,
		"CHECK_CLAUSE", tString, "SPANNER_STATE", tString)
	tc := newInfoTable("CONSTRAINT_CATALOG", tString, "CONSTRAINT_SCHEMA", tString, "CONSTRAINT_NAME", tString,
		"TABLE_CATALOG", tString, "TABLE_SCHEMA", tString, "TABLE_NAME", tString, "CONSTRAINT_TYPE", tString,
		"IS_DEFERRABLE", tString, "INITIALLY_DEFERRED", tString, "ENFORCED", tString)
	refs := newInfoTable("CONSTRAINT_CATALOG", tString, "CONSTRAINT_SCHEMA", tString, "CONSTRAINT_NAME", tString,
		"UNIQUE_CONSTRAINT_CATALOG", tString, "UNIQUE_CONSTRAINT_SCHEMA", tString, "UNIQUE_CONSTRAINT_NAME", tString,
		"MATCH_OPTION", tString, "UPDATE_RULE", tString, "DELETE_RULE", tString, "SPANNER_STATE", tString)
	addTC := func(constraint, table, kind string) {
		tc.add(lit(""), lit(""), lit(constraint), lit(""), lit(""), lit(table), lit(kind), lit("NO"), lit("NO"), lit("YES"))
	}
	for _, t := range cat.Tables {
		addTC("PK_"+t.Name, t.Name, "PRIMARY KEY")
		for _, col := range t.Columns {
			if col.NotNull {
				n := "CK_IS_NOT_NULL_" + t.Name + "_" + col.Name
				checks.add(lit(""), lit(""), lit(n), lit(col.Name+" IS NOT NULL"), lit("COMMITTED"))
				addTC(n, t.Name, "CHECK")
			}
		}
		for _, ck := range t.Checks {
			checks.add(lit(""), lit(""), lit(ck.Name), lit(ck.Expr), lit("COMMITTED"))
			addTC(ck.Name, t.Name, "CHECK")
		}
		for _, fk := range t.ForeignKeys {
			addTC(fk.Name, t.Name, "FOREIGN KEY")
			rule := "NO ACTION"
			if fk.OnDelete == schema.Cascade {
				rule = "CASCADE"
			}
			refs.add(lit(""), lit(""), lit(fk.Name), lit(""), lit(""), lit("PK_"+fk.RefTable.Name), lit("SIMPLE"), lit("NO ACTION"), lit(rule), lit("COMMITTED"))
		}
	}
	switch name {
	case "CHECK_CONSTRAINTS":
		return checks
	case "TABLE_CONSTRAINTS":
		return tc
	}
	return refs
}
