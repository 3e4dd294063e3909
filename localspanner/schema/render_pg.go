package schema

import (
	"regexp"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// RenderPG returns the schema of a PostgreSQL-dialect database as PostgreSQL DDL, as
// GetDatabaseDdl answers for such a database: tables in creation order (parents
// first), each followed by its indexes, then the foreign keys that reference a later
// table. Type names are PostgreSQL's canonical spellings (character varying, timestamp
// with time zone, ...), spanner.commit_timestamp for commit-timestamp columns. Change
// streams come last.
func (c *Catalog) RenderPG() []string {
	out := c.tablesDDL((*Table).renderPG, (*Index).renderPG, func(t *Table, fk *ForeignKey) string {
		return "ALTER TABLE " + pgIdent(t.Name) + " ADD " + fk.renderPG()
	})
	for _, cs := range c.ChangeStreams {
		out = append(out, cs.renderPG())
	}
	return out
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_$]*$`)

// pgIdent quotes a name unless PostgreSQL reads it back unchanged without quotes: lower
// case letters, digits, _ and $, and not one of PostgreSQL's keywords other than the
// unreserved ones (its lexer says which: "user", "select", "order" need quotes).
func pgIdent(name string) string {
	if plainIdent.MatchString(name) && !pgKeyword(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func pgKeyword(name string) bool {
	sc, err := pg.Scan(name)
	if err != nil || len(sc.GetTokens()) != 1 {
		return true // quoting is always safe
	}
	k := sc.GetTokens()[0].GetKeywordKind()
	return k != pg.KeywordKind_NO_KEYWORD && k != pg.KeywordKind_UNRESERVED_KEYWORD
}

func pgIdents(cols []*Column) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = pgIdent(c.Name)
	}
	return strings.Join(out, ", ")
}

// PGTypeName is the PostgreSQL name of a Spanner type in a PostgreSQL-dialect database.
func PGTypeName(t *spannerpb.Type, length int64) string {
	if t.GetCode() == spannerpb.TypeCode_ARRAY {
		return PGTypeName(t.GetArrayElementType(), length) + "[]"
	}
	switch t.GetCode() {
	case spannerpb.TypeCode_INT64:
		return "bigint"
	case spannerpb.TypeCode_BOOL:
		return "boolean"
	case spannerpb.TypeCode_FLOAT64:
		return "double precision"
	case spannerpb.TypeCode_FLOAT32:
		return "real"
	case spannerpb.TypeCode_STRING:
		if length > 0 {
			return "character varying(" + strconv.FormatInt(length, 10) + ")"
		}
		return "character varying"
	case spannerpb.TypeCode_BYTES:
		return "bytea"
	case spannerpb.TypeCode_NUMERIC:
		return "numeric"
	case spannerpb.TypeCode_DATE:
		return "date"
	case spannerpb.TypeCode_TIMESTAMP:
		return "timestamp with time zone"
	case spannerpb.TypeCode_JSON:
		return "jsonb"
	}
	return strings.ToLower(t.GetCode().String())
}

func (t *Table) renderPG(before map[*Table]bool) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + pgIdent(t.Name) + " (\n")
	for _, col := range t.Columns {
		typ := PGTypeName(col.Type, col.Length)
		if col.AllowCommitTimestamp {
			typ = "spanner.commit_timestamp"
		}
		b.WriteString("  " + pgIdent(col.Name) + " " + typ)
		if col.NotNull {
			b.WriteString(" NOT NULL")
		}
		if col.Generated != "" {
			b.WriteString(" GENERATED ALWAYS AS (" + renderPGGenerated(col.Generated) + ") STORED")
		}
		b.WriteString(",\n")
	}
	for _, fk := range t.ForeignKeys {
		if before[fk.RefTable] {
			b.WriteString("  " + fk.renderPG() + ",\n")
		}
	}
	b.WriteString("  PRIMARY KEY(" + keyList(t.PrimaryKey, func(c *Column) string { return pgIdent(c.Name) }) + ")\n)")
	if t.Parent != nil {
		b.WriteString(" INTERLEAVE IN PARENT " + pgIdent(t.Parent.Name))
		if t.OnDelete == Cascade {
			b.WriteString(" ON DELETE CASCADE")
		}
	}
	return b.String()
}

func (fk *ForeignKey) renderPG() string {
	s := "CONSTRAINT " + pgIdent(fk.Name) + " FOREIGN KEY (" + pgIdents(fk.Columns) + ") REFERENCES " +
		pgIdent(fk.RefTable.Name) + "(" + pgIdents(fk.RefColumns) + ")"
	if fk.OnDelete == Cascade {
		s += " ON DELETE CASCADE"
	}
	return s
}

func (ix *Index) renderPG() string {
	var b strings.Builder
	b.WriteString("CREATE ")
	if ix.Unique {
		b.WriteString("UNIQUE ")
	}
	b.WriteString("INDEX " + pgIdent(ix.Name) + " ON " + pgIdent(ix.Table.Name) + " (" +
		keyList(ix.Keys, func(c *Column) string { return pgIdent(c.Name) }) + ")")
	if len(ix.Storing) > 0 {
		b.WriteString(" INCLUDE (" + pgIdents(ix.Storing) + ")")
	}
	if ix.Interleave != nil {
		b.WriteString(" INTERLEAVE IN " + pgIdent(ix.Interleave.Name))
	}
	if ix.NullFiltered {
		conds := make([]string, len(ix.Keys))
		for i, k := range ix.Keys {
			conds[i] = pgIdent(k.Column.Name) + " IS NOT NULL"
		}
		b.WriteString(" WHERE (" + strings.Join(conds, " AND ") + ")")
	}
	return b.String()
}
