package query

import (
	"strings"

	"github.com/cloudspannerecosystem/memefish/ast"
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/grpc/codes"
)

// Spanner's PostgreSQL dialect writes hints as comments that start with "/*@", a table
// hint right after the table's name: FROM t /*@ FORCE_INDEX = t_by_x */ AS a. PostgreSQL's
// parser drops comments, so the lexer finds them; a table hint becomes the memefish
// table hint the GoogleSQL compiler applies (FORCE_INDEX, ...). Statement hints at the
// start of a statement change no results and are left out.

// pgHints maps the end offset of the token a hint comment follows to the comment's body.
func pgHints(text string) map[int32]string {
	sc, err := pg.Scan(text)
	if err != nil {
		return nil // the parser reports the error
	}
	var out map[int32]string
	var prevEnd int32 = -1
	for _, t := range sc.GetTokens() {
		if t.GetToken() == pg.Token_C_COMMENT || t.GetToken() == pg.Token_SQL_COMMENT {
			body := text[t.GetStart():t.GetEnd()]
			if strings.HasPrefix(body, "/*@") && prevEnd >= 0 {
				if out == nil {
					out = map[int32]string{}
				}
				out[prevEnd] = strings.TrimSuffix(strings.TrimPrefix(body, "/*@"), "*/")
			}
			continue
		}
		prevEnd = t.GetEnd()
	}
	return out
}

// tableHint is the hint written right after rv's table name, or nil.
func (l *pgLower) tableHint(rv *pg.RangeVar) (*ast.Hint, error) {
	if len(l.hints) == 0 {
		return nil, nil
	}
	end := rv.GetLocation() + int32(len(rv.GetRelname()))
	if rv.GetSchemaname() != "" {
		end += int32(len(rv.GetSchemaname())) + 1
	}
	body, ok := l.hints[end]
	if !ok {
		body, ok = l.hints[end+2] // a quoted name: "Name"
	}
	if !ok {
		return nil, nil
	}
	h := &ast.Hint{}
	for _, rec := range strings.Split(body, ",") {
		k, v, found := strings.Cut(rec, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !found || k == "" || v == "" {
			return nil, errorf(codes.InvalidArgument, "[ERROR] Invalid hint: %s", strings.TrimSpace(body))
		}
		h.Records = append(h.Records, &ast.HintRecord{Key: &ast.Path{Idents: []*ast.Ident{ident(k, -1)}}, Value: ident(identText(v), -1)})
	}
	return h, nil
}

// identText is a name as PostgreSQL reads it: folded to lower case unless quoted.
func identText(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		return strings.ReplaceAll(raw[1:len(raw)-1], `""`, `"`)
	}
	return strings.ToLower(raw)
}
