package query

import (
	"fmt"
	"strings"

	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/schema"
)

// memefish v0.8.1 panics on some malformed input (e.g. `0"\0`) while reporting the
// error; these wrappers turn such panics into syntax errors.

func parseStatement(text string) (stmt ast.Statement, err error) {
	text = trimSemicolon(text)
	if err := schema.CheckNesting(text); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			stmt, err = nil, fmt.Errorf("unparsable statement (%v)", r)
		}
	}()
	return memefish.ParseStatement("", text)
}

func parseExpr(text string) (e ast.Expr, err error) {
	if err := schema.CheckNesting(text); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, fmt.Errorf("unparsable expression (%v)", r)
		}
	}()
	return memefish.ParseExpr("", text)
}

// trimSemicolon drops one trailing semicolon (and the spaces around it): Spanner
// accepts "SELECT * FROM t;" in ExecuteSql and PartitionQuery, memefish does not.
// Only the end of the text changes, so positions in messages stay right.
func trimSemicolon(text string) string {
	t := strings.TrimRight(text, " \t\r\n")
	if strings.HasSuffix(t, ";") {
		return strings.TrimSuffix(t, ";")
	}
	return text
}
