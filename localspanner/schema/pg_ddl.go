package schema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cloudspannerecosystem/memefish/ast"
	pg "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// LowerPG turns one DDL statement of a PostgreSQL-dialect database, parsed by the real
// PostgreSQL parser (libpg_query through pg_query_go), into the GoogleSQL DDL statement
// with the same effect on the catalog. The catalog is built from the lowered text (the
// one form it replays), and RenderPG gives the PostgreSQL DDL back.
//
// Spanner's PostgreSQL DDL extensions that PostgreSQL's grammar lacks
// (INTERLEAVE IN PARENT after a CREATE TABLE, INTERLEAVE IN after a CREATE INDEX) are
// cut off with the PostgreSQL lexer before parsing and lowered beside the rest.
//
// Supported: CREATE TABLE [IF NOT EXISTS] with column and table PRIMARY KEY, NOT NULL,
// REFERENCES / FOREIGN KEY [ON DELETE CASCADE | NO ACTION]; the types of Spanner's
// PostgreSQL dialect and their arrays (bigint, varchar(n), text, bytea, boolean,
// double precision, real, numeric, date, timestamptz, jsonb, spanner.commit_timestamp);
// CREATE [UNIQUE] INDEX [IF NOT EXISTS] ... [INCLUDE (...)] [WHERE c IS NOT NULL AND
// ...] [INTERLEAVE IN t]; DROP TABLE / INDEX [IF EXISTS]; ALTER TABLE ADD COLUMN, DROP
// COLUMN, ADD / DROP CONSTRAINT, ALTER COLUMN SET / DROP NOT NULL and TYPE; CREATE / ALTER /
// DROP CHANGE STREAM (lowerPGChangeStream); ALTER DATABASE db SET / RESET of the local
// server's own options (lowerPGDatabaseOption). Anything else
// is UNIMPLEMENTED, naming the statement. cat is the schema the statement applies to:
// ALTER COLUMN is lowered to GoogleSQL's whole column definition, which it completes.
func LowerPG(cat *Catalog, stmt string) (string, error) {
	if err := CheckPGText(stmt); err != nil {
		return "", err
	}
	if isPGChangeStream(stmt) {
		return lowerPGChangeStream(stmt)
	}
	text, inter, err := cutInterleave(stmt)
	if err != nil {
		return "", err
	}
	res, err := pg.Parse(text)
	if err != nil {
		return "", pgDDLSyntaxError(err)
	}
	if len(res.Stmts) != 1 {
		return "", spanerr.InvalidArgument("[ERROR] DDL statements must be sent one per string; found %d; failed to parse the DDL statements.", len(res.Stmts))
	}
	n := res.Stmts[0].Stmt
	if inter != nil && n.GetCreateStmt() == nil && n.GetIndexStmt() == nil {
		return "", spanerr.InvalidArgument("[ERROR] syntax error at or near \"INTERLEAVE\"; failed to parse the DDL statements.")
	}
	switch {
	case n.GetCreateStmt() != nil:
		return lowerCreateTable(n.GetCreateStmt(), inter)
	case n.GetIndexStmt() != nil:
		return lowerCreateIndex(n.GetIndexStmt(), inter)
	case n.GetDropStmt() != nil:
		return lowerDrop(n.GetDropStmt())
	case n.GetAlterTableStmt() != nil:
		return lowerAlterTable(cat, n.GetAlterTableStmt())
	case n.GetAlterDatabaseSetStmt() != nil:
		return lowerPGDatabaseOption(n.GetAlterDatabaseSetStmt())
	}
	return "", spanerr.Unimplemented("This DDL statement is not supported by the local Spanner server for PostgreSQL databases: %s", firstWords(stmt))
}

// CheckPGText refuses text that libpg_query cannot be handed: it reads a C string, so
// it would stop at a NUL byte and parse only what comes before. PostgreSQL refuses it.
func CheckPGText(text string) error {
	if strings.IndexByte(text, 0) >= 0 {
		return spanerr.InvalidArgument("[ERROR] invalid byte sequence for encoding \"UTF8\": 0x00")
	}
	return nil
}

// pgDDLSyntaxError is Cloud Spanner's answer to a DDL statement PostgreSQL cannot parse.
func pgDDLSyntaxError(err error) error {
	return spanerr.InvalidArgument("[ERROR] %s; failed to parse the DDL statements.", PGErrorMessage(err))
}

// PGErrorMessage is the message of a pg_query parse error (PostgreSQL's own wording).
func PGErrorMessage(err error) string {
	var pe *pgparser.Error
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}

// interleave is a Spanner INTERLEAVE clause cut from a PostgreSQL statement.
type interleave struct {
	parent  string // the parent table (or the table an index is interleaved in)
	inParen bool   // INTERLEAVE IN PARENT (tables) rather than INTERLEAVE IN
	cascade bool   // ON DELETE CASCADE
}

// cutInterleave removes "INTERLEAVE IN [PARENT] name [ON DELETE CASCADE | ON DELETE NO
// ACTION]" (outside parentheses) from stmt, found with PostgreSQL's lexer; what follows
// it (an index's WHERE) stays.
func cutInterleave(stmt string) (string, *interleave, error) {
	sc, err := pg.Scan(stmt)
	if err != nil {
		return "", nil, pgDDLSyntaxError(err)
	}
	toks := sc.Tokens
	word := func(i int) string {
		if i >= len(toks) {
			return ""
		}
		return strings.ToLower(stmt[toks[i].Start:toks[i].End])
	}
	depth := 0
	for i, t := range toks {
		switch t.Token {
		case pg.Token_ASCII_40:
			depth++
		case pg.Token_ASCII_41:
			depth--
		}
		if depth != 0 || word(i) != "interleave" || word(i+1) != "in" {
			continue
		}
		in := &interleave{}
		j := i + 2
		if word(j) == "parent" && j+1 < len(toks) && word(j+1) != "on" && word(j+1) != ";" {
			in.inParen = true
			j++
		}
		if j >= len(toks) {
			break
		}
		in.parent = identText(stmt[toks[j].Start:toks[j].End])
		j++
		switch {
		case word(j) == "on" && word(j+1) == "delete" && word(j+2) == "cascade":
			in.cascade = true
			j += 3
		case word(j) == "on" && word(j+1) == "delete" && word(j+2) == "no" && word(j+3) == "action":
			j += 4
		}
		end := len(stmt)
		if j < len(toks) {
			end = int(toks[j].Start)
		}
		return stmt[:t.Start] + " " + stmt[end:], in, nil
	}
	return stmt, nil, nil
}

// identText is an identifier as PostgreSQL reads it: folded to lower case unless quoted.
func identText(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		return strings.ReplaceAll(raw[1:len(raw)-1], `""`, `"`)
	}
	return strings.ToLower(raw)
}

// gq quotes a name for the lowered GoogleSQL statement.
func gq(name string) (string, error) {
	if strings.ContainsAny(name, "`\\\n") || name == "" {
		return "", spanerr.InvalidArgument("[ERROR] invalid name %q: names may not contain backquotes, backslashes or newlines in the local Spanner server", name)
	}
	return "`" + name + "`", nil
}

func relName(rv *pg.RangeVar) (string, error) {
	if rv.GetSchemaname() != "" && rv.GetSchemaname() != "public" {
		return "", spanerr.Unimplemented("Named schemas are not supported by the local Spanner server: %s.%s", rv.GetSchemaname(), rv.GetRelname())
	}
	return gq(rv.GetRelname())
}

func stringList(nodes []*pg.Node) ([]string, error) {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		q, err := gq(n.GetString_().GetSval())
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

// pgTypes maps the names PostgreSQL's parser gives the types of Spanner's PostgreSQL
// dialect to GoogleSQL types (Spanner's "PostgreSQL data types" page).
var pgTypes = map[string]ast.ScalarTypeName{
	"int8": ast.Int64TypeName, "bool": ast.BoolTypeName, "float8": ast.Float64TypeName,
	"float4": ast.Float32TypeName, "varchar": ast.StringTypeName, "text": ast.StringTypeName,
	"bytea": ast.BytesTypeName, "numeric": ast.NumericTypeName, "date": ast.DateTypeName,
	"timestamptz": ast.TimestampTypeName, "jsonb": ast.JSONTypeName,
}

// PGScalarType is the GoogleSQL type of a PostgreSQL type name as the parser gives it
// (the last part of TypeName.names: int8, varchar, timestamptz, ...).
func PGScalarType(name string) (ast.ScalarTypeName, bool) {
	t, ok := pgTypes[name]
	return t, ok
}

// lowerType returns the GoogleSQL type of a PostgreSQL column type and whether it is
// spanner.commit_timestamp.
func lowerType(tn *pg.TypeName) (string, bool, error) {
	var parts []string
	for _, n := range tn.GetNames() {
		parts = append(parts, n.GetString_().GetSval())
	}
	name := parts[len(parts)-1]
	if len(parts) == 2 && parts[0] == "spanner" && name == "commit_timestamp" {
		if len(tn.GetArrayBounds()) > 0 {
			return "", false, spanerr.InvalidArgument("[ERROR] spanner.commit_timestamp cannot be an array element type")
		}
		return "TIMESTAMP", true, nil
	}
	if len(parts) == 2 && parts[0] != "pg_catalog" {
		name = strings.Join(parts, ".")
	}
	st, ok := pgTypes[name]
	g := string(st)
	if !ok {
		return "", false, spanerr.InvalidArgument("[ERROR] Type <%s> is not supported.", name)
	}
	switch {
	case g == "STRING" && name == "varchar" && len(tn.GetTypmods()) == 1:
		n := tn.GetTypmods()[0].GetAConst().GetIval().GetIval()
		g = fmt.Sprintf("STRING(%d)", n)
	case g == "STRING" || g == "BYTES":
		g += "(MAX)"
	case len(tn.GetTypmods()) > 0:
		return "", false, spanerr.InvalidArgument("[ERROR] Type modifiers are not supported for type <%s>.", name)
	}
	switch len(tn.GetArrayBounds()) {
	case 0:
	case 1:
		g = "ARRAY<" + g + ">"
	default:
		return "", false, spanerr.InvalidArgument("[ERROR] Multi-dimensional arrays are not supported.")
	}
	return g, false, nil
}

func lowerColumn(cd *pg.ColumnDef) (def string, pk bool, fks []string, err error) {
	name, err := gq(cd.GetColname())
	if err != nil {
		return "", false, nil, err
	}
	typ, commitTS, err := lowerType(cd.GetTypeName())
	if err != nil {
		return "", false, nil, err
	}
	def = name + " " + typ
	notNull := cd.GetIsNotNull()
	generated := ""
	for _, cn := range cd.GetConstraints() {
		c := cn.GetConstraint()
		switch c.GetContype() {
		case pg.ConstrType_CONSTR_NOTNULL:
			notNull = true
		case pg.ConstrType_CONSTR_NULL:
		case pg.ConstrType_CONSTR_PRIMARY:
			pk, notNull = true, true
		case pg.ConstrType_CONSTR_FOREIGN:
			c.FkAttrs = []*pg.Node{pg.MakeStrNode(cd.GetColname())}
			fk, err := lowerForeignKey(c)
			if err != nil {
				return "", false, nil, err
			}
			fks = append(fks, fk)
		case pg.ConstrType_CONSTR_GENERATED:
			// GENERATED ALWAYS AS (expr) STORED: PostgreSQL's grammar has no other form
			// of it (a virtual one is a syntax error before PostgreSQL 18).
			if commitTS {
				return "", false, nil, spanerr.InvalidArgument("[ERROR] a generated column cannot be a spanner.commit_timestamp column")
			}
			generated, err = lowerGenerated(c.GetRawExpr())
			if err != nil {
				return "", false, nil, err
			}
		default:
			return "", false, nil, unsupportedConstraint(c)
		}
	}
	if notNull {
		def += " NOT NULL"
	}
	if generated != "" {
		def += " AS (" + generated + ") STORED"
	}
	if commitTS {
		def += " OPTIONS (allow_commit_timestamp = true)"
	}
	return def, pk, fks, nil
}

func unsupportedConstraint(c *pg.Constraint) error {
	what := strings.TrimPrefix(c.GetContype().String(), "CONSTR_")
	return spanerr.Unimplemented("%s constraints are not supported by the local Spanner server for PostgreSQL databases", what)
}

func lowerForeignKey(c *pg.Constraint) (string, error) {
	cols, err := stringList(c.GetFkAttrs())
	if err != nil {
		return "", err
	}
	ref, err := relName(c.GetPktable())
	if err != nil {
		return "", err
	}
	refCols, err := stringList(c.GetPkAttrs())
	if err != nil {
		return "", err
	}
	if len(refCols) == 0 {
		return "", spanerr.InvalidArgument("[ERROR] Foreign key must name the referenced columns.")
	}
	s := ""
	if c.GetConname() != "" {
		n, err := gq(c.GetConname())
		if err != nil {
			return "", err
		}
		s = "CONSTRAINT " + n + " "
	}
	s += "FOREIGN KEY (" + strings.Join(cols, ", ") + ") REFERENCES " + ref + " (" + strings.Join(refCols, ", ") + ")"
	switch c.GetFkDelAction() {
	case "c":
		s += " ON DELETE CASCADE"
	case "a", "":
	default:
		return "", spanerr.Unimplemented("Foreign key referential action is not supported: only ON DELETE CASCADE and NO ACTION.")
	}
	return s, nil
}

func lowerCreateTable(s *pg.CreateStmt, inter *interleave) (string, error) {
	name, err := relName(s.GetRelation())
	if err != nil {
		return "", err
	}
	var defs, pk, fks []string
	for _, e := range s.GetTableElts() {
		switch {
		case e.GetColumnDef() != nil:
			def, colPK, colFKs, err := lowerColumn(e.GetColumnDef())
			if err != nil {
				return "", err
			}
			if colPK {
				if pk != nil {
					return "", spanerr.InvalidArgument("[ERROR] multiple primary keys for table %q are not allowed", s.GetRelation().GetRelname())
				}
				pk = []string{"`" + e.GetColumnDef().GetColname() + "`"}
			}
			defs = append(defs, def)
			fks = append(fks, colFKs...)
		case e.GetConstraint() != nil:
			c := e.GetConstraint()
			switch c.GetContype() {
			case pg.ConstrType_CONSTR_PRIMARY:
				if pk != nil {
					return "", spanerr.InvalidArgument("[ERROR] multiple primary keys for table %q are not allowed", s.GetRelation().GetRelname())
				}
				if pk, err = stringList(c.GetKeys()); err != nil {
					return "", err
				}
			case pg.ConstrType_CONSTR_FOREIGN:
				fk, err := lowerForeignKey(c)
				if err != nil {
					return "", err
				}
				fks = append(fks, fk)
			default:
				return "", unsupportedConstraint(c)
			}
		default:
			return "", spanerr.Unimplemented("This CREATE TABLE element is not supported by the local Spanner server")
		}
	}
	if pk == nil {
		return "", spanerr.InvalidArgument("[ERROR] Primary key must be defined for table %s.", s.GetRelation().GetRelname())
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	if s.GetIfNotExists() {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(name + " (" + strings.Join(append(defs, fks...), ", ") + ") PRIMARY KEY (" + strings.Join(pk, ", ") + ")")
	if inter != nil {
		if !inter.inParen {
			return "", spanerr.Unimplemented("INTERLEAVE IN without PARENT is not supported by the local Spanner server")
		}
		p, err := gq(inter.parent)
		if err != nil {
			return "", err
		}
		b.WriteString(", INTERLEAVE IN PARENT " + p)
		if inter.cascade {
			b.WriteString(" ON DELETE CASCADE")
		}
	}
	return b.String(), nil
}

func lowerCreateIndex(s *pg.IndexStmt, inter *interleave) (string, error) {
	name, err := gq(s.GetIdxname())
	if err != nil {
		return "", err
	}
	table, err := relName(s.GetRelation())
	if err != nil {
		return "", err
	}
	var keys []string
	keyNames := map[string]bool{}
	for _, p := range s.GetIndexParams() {
		e := p.GetIndexElem()
		if e.GetExpr() != nil {
			return "", spanerr.InvalidArgument("[ERROR] Expression indexes are not supported.")
		}
		k, err := gq(e.GetName())
		if err != nil {
			return "", err
		}
		if e.GetOrdering() == pg.SortByDir_SORTBY_DESC {
			k += " DESC"
		}
		keyNames[e.GetName()] = true
		keys = append(keys, k)
	}
	var storing []string
	for _, p := range s.GetIndexIncludingParams() {
		k, err := gq(p.GetIndexElem().GetName())
		if err != nil {
			return "", err
		}
		storing = append(storing, k)
	}
	nullFiltered := false
	if w := s.GetWhereClause(); w != nil {
		if !notNullOfKeys(w, keyNames) {
			return "", spanerr.Unimplemented("[ERROR] Partial indexes are supported only with WHERE conditions of the form \"<key column> IS NOT NULL\" on every key column, combined with AND.")
		}
		nullFiltered = true
	}
	var b strings.Builder
	b.WriteString("CREATE ")
	if s.GetUnique() {
		b.WriteString("UNIQUE ")
	}
	if nullFiltered {
		b.WriteString("NULL_FILTERED ")
	}
	b.WriteString("INDEX ")
	if s.GetIfNotExists() {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(name + " ON " + table + " (" + strings.Join(keys, ", ") + ")")
	if len(storing) > 0 {
		b.WriteString(" STORING (" + strings.Join(storing, ", ") + ")")
	}
	if inter != nil {
		if inter.inParen || inter.cascade {
			return "", spanerr.InvalidArgument("[ERROR] syntax error at or near \"PARENT\"; failed to parse the DDL statements.")
		}
		p, err := gq(inter.parent)
		if err != nil {
			return "", err
		}
		b.WriteString(", INTERLEAVE IN " + p)
	}
	return b.String(), nil
}

// notNullOfKeys reports whether w is "k IS NOT NULL" for every key column k, ANDed.
func notNullOfKeys(w *pg.Node, keys map[string]bool) bool {
	seen := map[string]bool{}
	var walk func(n *pg.Node) bool
	walk = func(n *pg.Node) bool {
		if be := n.GetBoolExpr(); be != nil {
			if be.GetBoolop() != pg.BoolExprType_AND_EXPR {
				return false
			}
			for _, a := range be.GetArgs() {
				if !walk(a) {
					return false
				}
			}
			return true
		}
		nt := n.GetNullTest()
		if nt == nil || nt.GetNulltesttype() != pg.NullTestType_IS_NOT_NULL {
			return false
		}
		f := nt.GetArg().GetColumnRef().GetFields()
		if len(f) != 1 || !keys[f[0].GetString_().GetSval()] {
			return false
		}
		seen[f[0].GetString_().GetSval()] = true
		return true
	}
	return walk(w) && len(seen) == len(keys)
}

func lowerDrop(s *pg.DropStmt) (string, error) {
	var kind string
	switch s.GetRemoveType() {
	case pg.ObjectType_OBJECT_TABLE:
		kind = "TABLE"
	case pg.ObjectType_OBJECT_INDEX:
		kind = "INDEX"
	default:
		return "", spanerr.Unimplemented("DROP %s is not supported by the local Spanner server", strings.TrimPrefix(s.GetRemoveType().String(), "OBJECT_"))
	}
	if len(s.GetObjects()) != 1 {
		return "", spanerr.InvalidArgument("[ERROR] DROP %s names one object at a time in Spanner", kind)
	}
	names := s.GetObjects()[0].GetList().GetItems()
	name, err := gq(names[len(names)-1].GetString_().GetSval())
	if err != nil {
		return "", err
	}
	out := "DROP " + kind + " "
	if s.GetMissingOk() {
		out += "IF EXISTS "
	}
	return out + name, nil
}

func lowerAlterTable(cat *Catalog, s *pg.AlterTableStmt) (string, error) {
	table, err := relName(s.GetRelation())
	if err != nil {
		return "", err
	}
	if len(s.GetCmds()) != 1 {
		return "", spanerr.Unimplemented("ALTER TABLE with more than one action is not supported by the local Spanner server")
	}
	cmd := s.GetCmds()[0].GetAlterTableCmd()
	head := "ALTER TABLE " + table + " "
	switch cmd.GetSubtype() {
	case pg.AlterTableType_AT_AddColumn:
		def, pk, fks, err := lowerColumn(cmd.GetDef().GetColumnDef())
		if err != nil {
			return "", err
		}
		if pk || len(fks) > 0 {
			return "", spanerr.Unimplemented("ADD COLUMN with PRIMARY KEY or REFERENCES is not supported by the local Spanner server")
		}
		return head + "ADD COLUMN " + def, nil
	case pg.AlterTableType_AT_DropColumn:
		col, err := gq(cmd.GetName())
		return head + "DROP COLUMN " + col, err
	case pg.AlterTableType_AT_AddConstraint:
		c := cmd.GetDef().GetConstraint()
		if c.GetContype() != pg.ConstrType_CONSTR_FOREIGN {
			return "", unsupportedConstraint(c)
		}
		fk, err := lowerForeignKey(c)
		return head + "ADD " + fk, err
	case pg.AlterTableType_AT_DropConstraint:
		n, err := gq(cmd.GetName())
		return head + "DROP CONSTRAINT " + n, err
	case pg.AlterTableType_AT_SetNotNull, pg.AlterTableType_AT_DropNotNull, pg.AlterTableType_AT_AlterColumnType:
		return lowerAlterColumn(cat, s.GetRelation().GetRelname(), cmd)
	}
	return "", spanerr.Unimplemented("This ALTER TABLE action is not supported by the local Spanner server for PostgreSQL databases")
}

// lowerAlterColumn lowers ALTER COLUMN c SET / DROP NOT NULL and ALTER COLUMN c TYPE t to
// GoogleSQL's ALTER COLUMN with the column's whole definition (its type, or its NOT NULL,
// kept from the catalog).
func lowerAlterColumn(cat *Catalog, table string, cmd *pg.AlterTableCmd) (string, error) {
	t, ok := cat.Table(table)
	if !ok {
		return "", spanerr.NotFound("[ERROR] relation \"%s\" does not exist", table)
	}
	col, ok := t.Column(cmd.GetName())
	if !ok {
		return "", spanerr.NotFound("[ERROR] column \"%s\" of relation \"%s\" does not exist", cmd.GetName(), table)
	}
	typ, notNull := TypeDDL(col.Type, col.Length), col.NotNull
	switch cmd.GetSubtype() {
	case pg.AlterTableType_AT_SetNotNull:
		notNull = true
	case pg.AlterTableType_AT_DropNotNull:
		notNull = false
	default:
		cd := cmd.GetDef().GetColumnDef()
		if cd.GetRawDefault() != nil {
			return "", spanerr.Unimplemented("ALTER COLUMN ... TYPE ... USING is not supported by the local Spanner server")
		}
		var err error
		if typ, _, err = lowerType(cd.GetTypeName()); err != nil {
			return "", err
		}
	}
	tq, err := gq(t.Name)
	if err != nil {
		return "", err
	}
	cq, err := gq(col.Name)
	if err != nil {
		return "", err
	}
	out := "ALTER TABLE " + tq + " ALTER COLUMN " + cq + " " + typ
	if notNull {
		out += " NOT NULL"
	}
	return out, nil
}
