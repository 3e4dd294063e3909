package schema

import (
	"errors"
	"strings"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// unknownTypeError is a column type that is neither a Spanner type nor a type of the
// proto bundle. memefish reads any name there as a proto type; Spanner's DDL parser
// does not get that far: the statement fails to parse, as INVALID_ARGUMENT worded
//
//	Error parsing Spanner DDL statement: <statement> : Syntax error on line 1,
//	column 22: Encountered 'NOSUCHTYPE' while parsing: column_type
//
// (lines and columns count from 1). The offsets are the name's in the statement.
type unknownTypeError struct{ pos, end int }

func (e *unknownTypeError) Error() string { return "unknown column type" }

// spannerSyntaxError turns an unknownTypeError in err's chain into Spanner's parse
// error for stmt; other errors pass unchanged.
func spannerSyntaxError(stmt string, err error) error {
	var u *unknownTypeError
	if !errors.As(err, &u) || u.pos < 0 || u.end > len(stmt) || u.pos > u.end {
		return err
	}
	before := stmt[:u.pos]
	line := 1 + strings.Count(before, "\n")
	col := u.pos - strings.LastIndex(before, "\n") // LastIndex is -1 on line 1
	return spanerr.Syntax("Error parsing Spanner DDL statement: %s : Syntax error on line %d, column %d: Encountered '%s' while parsing: column_type",
		StripDescriptors(stmt), line, col, stmt[u.pos:u.end])
}
