package schema

import (
	"errors"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/ast"
	"github.com/cloudspannerecosystem/memefish/token"
	"google.golang.org/protobuf/proto"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// View is a view (CREATE VIEW ... SQL SECURITY INVOKER|DEFINER AS query). The query
// layer compiles its query in place of the view's name (it is inlined, never stored).
type View struct {
	Name     string
	Security string // "INVOKER" or "DEFINER"
	// Body is the query's text as written in the DDL statement.
	Body string
	// Query is the parsed query; its positions are offsets in Text.
	Query ast.QueryExpr
	// Text is the whole CREATE VIEW statement.
	Text string
}

// ViewColumn is one output column of a view's query.
type ViewColumn struct {
	Name string
	Type *spannerpb.Type
}

// ViewCompiler compiles v's query against cat and returns its output columns (the query
// layer's, passed in by exec, as ExprCompiler is).
type ViewCompiler func(cat *Catalog, v *View) ([]ViewColumn, error)

// Compilers are the query layer's compilers that DDL needs: column expressions (for
// SQLite DDL), view queries (to check views) and the check of a column's DEFAULT
// against its type. Any may be nil in tests.
type Compilers struct {
	Expr    ExprCompiler
	View    ViewCompiler
	Default func(t *Table, col *Column) error
}

// View returns the view with the given name (case-insensitive).
func (c *Catalog) View(name string) (*View, bool) {
	v, ok := c.byView[strings.ToLower(name)]
	return v, ok
}

// DDL is the canonical CREATE VIEW statement of v.
func (v *View) DDL() string {
	return "CREATE VIEW " + v.Name + " SQL SECURITY " + v.Security + " AS " + v.Body
}

func (c *Catalog) createView(s *ast.CreateView, text string) error {
	name := pathName(s.Name)
	v := &View{Name: name, Security: string(s.SecurityType), Query: s.Query, Text: text}
	if start, end := int(s.Query.Pos()), int(s.Query.End()); start >= 0 && end <= len(text) && start <= end {
		v.Body = text[start:end]
	} else {
		v.Body = s.Query.SQL()
	}
	if old, ok := c.View(name); ok {
		if !s.OrReplace {
			return spanerr.FailedPrecondition("Duplicate name in schema: %s.", name)
		}
		if c.reaches(v, old.Name) {
			return spanerr.FailedPrecondition("Cannot replace VIEW `%s` because new definition is recursive.", old.Name)
		}
		for i, x := range c.Views {
			if x == old {
				c.Views[i] = v
			}
		}
		c.byView[strings.ToLower(name)] = v
		return nil
	}
	if c.nameTaken(name) {
		return spanerr.FailedPrecondition("Duplicate name in schema: %s.", name)
	}
	c.Views = append(c.Views, v)
	c.byView[strings.ToLower(name)] = v
	return nil
}

func (c *Catalog) dropView(s *ast.DropView) error {
	name := pathName(s.Name)
	v, ok := c.View(name)
	if !ok {
		if s.IfExists {
			return nil
		}
		return spanerr.NotFound("View not found: %s", name)
	}
	c.Views = without(c.Views, v)
	delete(c.byView, strings.ToLower(name))
	return nil
}

// viewRefs lists the names that v's query reads as tables (FROM name).
func viewRefs(v *View) []string {
	var out []string
	ast.Inspect(v.Query, func(n ast.Node) bool {
		if tn, ok := n.(*ast.TableName); ok {
			out = append(out, tn.Table.Name)
		}
		return true
	})
	return out
}

// reaches reports whether v reads, directly or through other views of c, the view named target.
func (c *Catalog) reaches(v *View, target string) bool {
	seen := map[string]bool{}
	var walk func(*View) bool
	walk = func(x *View) bool {
		for _, ref := range viewRefs(x) {
			key := strings.ToLower(ref)
			if key == strings.ToLower(target) {
				return true
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			if next, ok := c.View(ref); ok && walk(next) {
				return true
			}
		}
		return false
	}
	return walk(v)
}

// missingSecurity recognises "CREATE [OR REPLACE] VIEW name AS ...", which memefish
// cannot parse, and answers Spanner's error for it.
func missingSecurity(stmt string) error {
	lx := &memefish.Lexer{File: &token.File{Buffer: stmt}}
	var words []string
	for len(words) < 8 {
		if nextToken(lx) != nil || lx.Token.Kind == token.TokenEOF {
			break
		}
		words = append(words, lx.Token.Raw)
	}
	i := 0
	next := func(want string) bool {
		if i < len(words) && strings.EqualFold(words[i], want) {
			i++
			return true
		}
		return false
	}
	if !next("CREATE") {
		return nil
	}
	if next("OR") && !next("REPLACE") {
		return nil
	}
	if !next("VIEW") || i+1 >= len(words) {
		return nil
	}
	name := strings.Trim(words[i], "`")
	i++
	if !next("AS") {
		return nil
	}
	return spanerr.InvalidArgument("View `%s` is missing the SQL SECURITY clause.", name)
}

// CheckViews checks the views after one DDL statement: a new or replaced view's query
// must compile, with named and distinct columns, and every other view must compile to
// the same columns as before the statement (Spanner refuses to drop or change what a
// view depends on). comp nil checks nothing.
func CheckViews(ch *Change, comp ViewCompiler) error {
	if comp == nil || ch.Old == nil {
		return nil
	}
	cur, old := ch.Catalog, ch.Old
	var changed *View
	if s, ok := ch.Stmt.(*ast.CreateView); ok {
		changed, _ = cur.View(pathName(s.Name))
		_, replaced := old.View(pathName(s.Name))
		cols, err := comp(cur, changed)
		if err == nil {
			err = checkViewColumns(cols)
		}
		if err != nil {
			if replaced {
				return spanerr.FailedPrecondition("Cannot replace VIEW `%s` because new definition is invalid with the following diagnostic message:\n\n%s", changed.Name, message(err))
			}
			return spanerr.InvalidArgument("Error analyzing the definition of view `%s`: %s", changed.Name, message(err))
		}
	}
	for _, v := range cur.Views {
		if v == changed {
			continue
		}
		before, err := comp(old, v)
		if err != nil {
			continue // it did not compile before either: not this statement's doing
		}
		after, err := comp(cur, v)
		if err == nil && sameColumns(before, after) {
			continue
		}
		return dependentViewError(ch, v, before, after, err)
	}
	return nil
}

func message(err error) string {
	var se *spanerr.Error
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}

func checkViewColumns(cols []ViewColumn) error {
	seen := map[string]bool{}
	for i, col := range cols {
		if col.Name == "" {
			return spanerr.InvalidArgument("CREATE VIEW columns must be named, but column %d has no name", i+1)
		}
		key := strings.ToLower(col.Name)
		if seen[key] {
			return spanerr.InvalidArgument("CREATE VIEW has columns with duplicate name %s", col.Name)
		}
		seen[key] = true
	}
	return nil
}

func sameColumns(a, b []ViewColumn) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i].Name, b[i].Name) || !proto.Equal(a[i].Type, b[i].Type) {
			return false
		}
	}
	return true
}

// dependentViewError is Spanner's answer when a statement breaks view v.
func dependentViewError(ch *Change, v *View, before, after []ViewColumn, compileErr error) error {
	kind, name, drop := "", "", false
	switch s := ch.Stmt.(type) {
	case *ast.DropTable:
		kind, name, drop = "TABLE", pathName(s.Name), true
	case *ast.DropIndex:
		kind, name, drop = "INDEX", pathName(s.Name), true
	case *ast.DropView:
		kind, name, drop = "VIEW", pathName(s.Name), true
	case *ast.CreateView:
		kind, name = "VIEW", pathName(s.Name)
	case *ast.AlterTable:
		kind, name = "TABLE", pathName(s.Name)
		switch a := s.TableAlteration.(type) {
		case *ast.DropColumn:
			kind, name, drop = "column", a.Name.Name, true
		case *ast.AlterColumn:
			kind, name = "column", pathName(s.Name)+"."+a.Name.Name
		}
	default:
		kind, name = "schema object", firstWords(ch.Stmt.SQL())
	}
	if drop {
		return spanerr.FailedPrecondition("Cannot drop %s `%s` on which there are dependent views: %s.", kind, name, v.Name)
	}
	if compileErr != nil {
		return spanerr.FailedPrecondition("Cannot alter %s `%s`. The new definition causes the definition of VIEW `%s` to become invalid with the following diagnostic message: %s", kind, name, v.Name, message(compileErr))
	}
	if len(before) != len(after) {
		return spanerr.FailedPrecondition("Cannot alter %s `%s`. Action would change the number of output columns of VIEW `%s` from %d to %d.", kind, name, v.Name, len(before), len(after))
	}
	for i := range before {
		if !strings.EqualFold(before[i].Name, after[i].Name) {
			return spanerr.FailedPrecondition("Cannot alter %s `%s`. Action would implicitly change the name of an output column for VIEW `%s` from `%s` to `%s`.", kind, name, v.Name, before[i].Name, after[i].Name)
		}
		if !proto.Equal(before[i].Type, after[i].Type) {
			return spanerr.FailedPrecondition("Cannot alter %s `%s`. Action would implicitly change the type of an output column for VIEW `%s` from `%s` to `%s`.", kind, name, v.Name, TypeDDL(before[i].Type, 0), TypeDDL(after[i].Type, 0))
		}
	}
	return nil
}
