package query

import (
	"errors"
	"regexp"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// The compiler words its errors as GoogleSQL does. For a PostgreSQL database, the ones a
// PostgreSQL user meets most are reworded as Cloud Spanner answers for such a database
// (PostgreSQL's own messages, "[ERROR] " first); the code stays.
var pgRewordings = []struct {
	re   *regexp.Regexp
	repl string
}{
	// GoogleSQL's message may go on with the statement's line and a caret under the column
	{regexp.MustCompile(`^Unrecognized name: (\S+) \[at [0-9:]+\](?s:\n.*)?$`), `[ERROR] column "$1" does not exist`},
}

// pgWording rewords err for cat's database when it is a PostgreSQL one.
func pgWording(cat *schema.Catalog, err error) error {
	var se *spanerr.Error
	if cat.Dialect() != schema.PostgreSQL || !errors.As(err, &se) {
		return err
	}
	for _, r := range pgRewordings {
		if r.re.MatchString(se.Msg) {
			return &spanerr.Error{Code: se.Code, Msg: r.re.ReplaceAllString(se.Msg, r.repl)}
		}
	}
	return err
}
