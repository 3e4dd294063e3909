package query

import (
	"fmt"

	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/schema"
)

// memefish v0.8.1 panics on some malformed input (e.g. `0"\0`) while reporting the
// error; these wrappers turn such panics into syntax errors.

func parseStatement(text string) (stmt ast.Statement, err error) {
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
