package query

import (
	"errors"
	"strconv"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"
	pg "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/schema"
)

// The PostgreSQL front-end. A statement sent to a PostgreSQL-dialect database is parsed
// by the real PostgreSQL parser (libpg_query through pg_query_go) and its tree is
// lowered, node by node, into the memefish tree of the GoogleSQL statement with the same
// meaning (pg_lower*.go). From there on it is compiled, cached and run exactly as a
// GoogleSQL statement is: one compiler, one plan, one engine.
//
// PostgreSQL's rules that differ from GoogleSQL's are applied in the lowering:
// parameters are $1, $2, ... (named p1, p2, ... on the wire, as the official clients
// send them); unquoted names are folded to lower case by the parser; result columns
// are named as PostgreSQL names them (count, ?column?, ...); ORDER BY puts NULLs last
// ascending and first descending; a decimal literal is numeric; RETURNING is THEN
// RETURN; ON CONFLICT DO NOTHING / DO UPDATE SET c = excluded.c are INSERT OR IGNORE /
// OR UPDATE. Errors carry PostgreSQL's wording, as Cloud Spanner answers for
// PostgreSQL databases ("[ERROR] syntax error at or near ...", "relation ... does not
// exist").

// parseFor parses a statement in the dialect of cat's database.
func parseFor(cat *schema.Catalog, text string) (ast.Statement, error) {
	if cat.Dialect() == schema.PostgreSQL {
		return parsePG(cat, text)
	}
	stmt, err := parseStatement(text)
	if err != nil {
		return nil, syntaxError(text, err)
	}
	return stmt, nil
}

func parsePG(cat *schema.Catalog, text string) (ast.Statement, error) {
	if err := schema.CheckNesting(text); err != nil {
		return nil, err
	}
	if err := schema.CheckPGText(text); err != nil {
		return nil, err
	}
	res, err := pg.Parse(text)
	if err != nil {
		return nil, pgSyntaxError(err)
	}
	if len(res.Stmts) != 1 {
		return nil, errorf(codes.InvalidArgument, "[ERROR] cannot insert multiple commands into a prepared statement")
	}
	l := &pgLower{text: text, cat: cat, ctes: map[string]bool{}, hints: pgHints(text)}
	return l.statement(res.Stmts[0].Stmt)
}

func pgSyntaxError(err error) error {
	var pe *pgparser.Error
	if errors.As(err, &pe) {
		return errorf(codes.InvalidArgument, "[ERROR] %s", pe.Message)
	}
	return errorf(codes.InvalidArgument, "[ERROR] %s", err.Error())
}

// pgParamName is the wire name of $n.
func pgParamName(n int32) string { return "p" + strconv.Itoa(int(n)) }

// PGAnnotate gives result columns the type annotations Cloud Spanner puts on a
// PostgreSQL database's NUMERIC and JSON values (PG_NUMERIC, PG_JSONB), which the
// clients read to tell numeric and jsonb from GoogleSQL's NUMERIC and JSON.
func PGAnnotate(fields []*spannerpb.StructType_Field) {
	for _, f := range fields {
		f.Type = pgAnnotated(f.GetType())
	}
}

func pgAnnotated(t *spannerpb.Type) *spannerpb.Type {
	switch t.GetCode() {
	case spannerpb.TypeCode_NUMERIC:
		return &spannerpb.Type{Code: t.GetCode(), TypeAnnotation: spannerpb.TypeAnnotationCode_PG_NUMERIC}
	case spannerpb.TypeCode_JSON:
		return &spannerpb.Type{Code: t.GetCode(), TypeAnnotation: spannerpb.TypeAnnotationCode_PG_JSONB}
	case spannerpb.TypeCode_ARRAY:
		if e := pgAnnotated(t.GetArrayElementType()); e != t.GetArrayElementType() {
			return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: e}
		}
	}
	return t
}

// pgPlain drops the PostgreSQL type annotations (PG_NUMERIC, PG_JSONB, PG_OID) the
// clients put on parameter types for a PostgreSQL database: the engine types values
// by their code alone.
func pgPlain(t *spannerpb.Type) *spannerpb.Type {
	switch {
	case t.GetCode() == spannerpb.TypeCode_ARRAY:
		if e := pgPlain(t.GetArrayElementType()); e != t.GetArrayElementType() {
			return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: e}
		}
	case t.GetTypeAnnotation() != spannerpb.TypeAnnotationCode_TYPE_ANNOTATION_CODE_UNSPECIFIED:
		return &spannerpb.Type{Code: t.GetCode()}
	}
	return t
}
