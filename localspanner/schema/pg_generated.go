package schema

import (
	"strconv"
	"strings"

	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/ast"
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// A generated column of a PostgreSQL-dialect database, as Spanner documents it:
// "name type GENERATED ALWAYS AS (expression) STORED". The catalog keeps GoogleSQL DDL,
// so the expression is lowered here (the query package's lowering imports this package,
// so it cannot serve) and rendered back by renderPGGenerated. Only the expressions a
// stored generated column of the built-in workloads needs are covered: column
// references, integer and string literals, + - * and ||, casts to bigint / text /
// varchar, and the functions of pgGeneratedFuncs. Anything else is UNIMPLEMENTED.

// pgGeneratedFuncs maps a PostgreSQL function (spanner.* written with its prefix) to the
// GoogleSQL function with the same meaning.
var pgGeneratedFuncs = map[string]string{
	"mod": "MOD", "abs": "ABS", "lower": "LOWER", "upper": "UPPER", "length": "CHAR_LENGTH",
	"concat": "CONCAT", "spanner.farm_fingerprint": "FARM_FINGERPRINT",
}

var pgGeneratedOps = map[string]string{"+": "+", "-": "-", "*": "*", "||": "||"}

func unsupportedGenerated(what string) error {
	return spanerr.Unimplemented("%s in a generated column is not supported by the local Spanner server for PostgreSQL databases", what)
}

// lowerGenerated is the GoogleSQL text of a generated column's PostgreSQL expression.
func lowerGenerated(n *pg.Node) (string, error) {
	switch {
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().GetFields()
		if len(f) != 1 || f[0].GetString_() == nil {
			return "", unsupportedGenerated("a qualified column reference")
		}
		return gq(pgStr(f[0]))
	case n.GetAConst() != nil:
		c := n.GetAConst()
		switch {
		case c.GetIval() != nil:
			return strconv.FormatInt(int64(c.GetIval().GetIval()), 10), nil
		case c.GetSval() != nil:
			return strconv.Quote(c.GetSval().GetSval()), nil
		}
		return "", unsupportedGenerated("a constant other than an integer or a string")
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		typ, commitTS, err := lowerType(tc.GetTypeName())
		if err != nil {
			return "", err
		}
		if commitTS {
			return "", unsupportedGenerated("a cast to spanner.commit_timestamp")
		}
		typ = strings.TrimSuffix(typ, "(MAX)")
		if i := strings.IndexByte(typ, '('); i > 0 {
			typ = typ[:i]
		}
		if typ != "INT64" && typ != "STRING" {
			return "", unsupportedGenerated("a cast to " + typ)
		}
		arg, err := lowerGenerated(tc.GetArg())
		if err != nil {
			return "", err
		}
		return "CAST(" + arg + " AS " + typ + ")", nil
	case n.GetFuncCall() != nil:
		fc := n.GetFuncCall()
		var parts []string
		for _, p := range fc.GetFuncname() {
			parts = append(parts, pgStr(p))
		}
		name := strings.Join(parts, ".")
		name = strings.TrimPrefix(name, "pg_catalog.")
		g, ok := pgGeneratedFuncs[name]
		if !ok || fc.GetAggStar() || fc.GetAggDistinct() || fc.GetOver() != nil {
			return "", unsupportedGenerated("function " + name)
		}
		args := make([]string, len(fc.GetArgs()))
		for i, a := range fc.GetArgs() {
			s, err := lowerGenerated(a)
			if err != nil {
				return "", err
			}
			args[i] = s
		}
		return g + "(" + strings.Join(args, ", ") + ")", nil
	case n.GetAExpr() != nil:
		e := n.GetAExpr()
		if e.GetKind() != pg.A_Expr_Kind_AEXPR_OP || len(e.GetName()) != 1 || e.GetLexpr() == nil {
			return "", unsupportedGenerated("this operator")
		}
		op, ok := pgGeneratedOps[pgStr(e.GetName()[0])]
		if !ok {
			return "", unsupportedGenerated("operator " + pgStr(e.GetName()[0]))
		}
		l, err := lowerGenerated(e.GetLexpr())
		if err != nil {
			return "", err
		}
		r, err := lowerGenerated(e.GetRexpr())
		if err != nil {
			return "", err
		}
		return "(" + l + " " + op + " " + r + ")", nil
	}
	return "", unsupportedGenerated("this expression")
}

// renderPGGenerated is the PostgreSQL text of a generated column's GoogleSQL expression
// (one lowerGenerated wrote, or GoogleSQL DDL in the same subset).
func renderPGGenerated(g string) string {
	e, err := memefish.ParseExpr("", g)
	if err != nil {
		return g
	}
	back := map[string]string{}
	for p, gs := range pgGeneratedFuncs {
		back[gs] = p
	}
	var walk func(ast.Expr) string
	walk = func(e ast.Expr) string {
		switch e := e.(type) {
		case *ast.Ident:
			return pgIdent(e.Name)
		case *ast.Path:
			return pgIdent(e.Idents[len(e.Idents)-1].Name)
		case *ast.IntLiteral:
			return e.Value
		case *ast.StringLiteral:
			return "'" + strings.ReplaceAll(e.Value, "'", "''") + "'"
		case *ast.ParenExpr:
			return "(" + walk(e.Expr) + ")"
		case *ast.BinaryExpr:
			return "(" + walk(e.Left) + " " + string(e.Op) + " " + walk(e.Right) + ")"
		case *ast.CastExpr:
			t := "bigint"
			if strings.HasPrefix(e.Type.SQL(), "STRING") {
				t = "text"
			}
			return "(" + walk(e.Expr) + ")::" + t
		case *ast.CallExpr:
			name := strings.ToUpper(e.Func.SQL())
			p, ok := back[name]
			if !ok {
				p = strings.ToLower(name)
			}
			args := make([]string, len(e.Args))
			for i, a := range e.Args {
				if ea, ok := a.(*ast.ExprArg); ok {
					args[i] = walk(ea.Expr)
				} else {
					args[i] = a.SQL()
				}
			}
			return p + "(" + strings.Join(args, ", ") + ")"
		}
		return e.SQL()
	}
	return walk(e)
}

func pgStr(n *pg.Node) string { return n.GetString_().GetSval() }
