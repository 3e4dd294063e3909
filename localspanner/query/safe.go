package query

import (
	"strings"

	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/sqlfn"
)

// safeCall makes the compiled scalar call e (of SAFE.name(...)) answer NULL where the
// function itself would fail: its outermost SQL function is swapped for its SAFE.
// twin (sqlfn.SafeName), so errors in the arguments still surface, as GoogleSQL has it.
// A function compiled to plain SQLite (no sp_ function around it) raises no value
// errors, and SAFE. leaves it as it is.
func (c *compiler) safeCall(x *ast.CallExpr, name string, e expr) (expr, error) {
	if aggregates[name] {
		return expr{}, c.invalid(x, "Function %s does not support SAFE error mode", name)
	}
	fn, ok := outerFunction(e.sql)
	if ok && sqlfn.HasSafe(fn) {
		e.sql = sqlfn.SafeName(fn) + e.sql[len(fn):]
	}
	return e, nil
}

// outerFunction returns f when sqlText is exactly one call f(...) of an sp_ function.
func outerFunction(sqlText string) (string, bool) {
	open := strings.IndexByte(sqlText, '(')
	if !strings.HasPrefix(sqlText, "sp_") || open < 0 || !strings.HasSuffix(sqlText, ")") {
		return "", false
	}
	depth, inStr := 0, false
	for i := open; i < len(sqlText); i++ {
		switch ch := sqlText[i]; {
		case ch == '\'':
			inStr = !inStr
		case inStr:
		case ch == '(':
			depth++
		case ch == ')':
			depth--
			if depth == 0 && i != len(sqlText)-1 {
				return "", false
			}
		}
	}
	return sqlText[:open], depth == 0
}
