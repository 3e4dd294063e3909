package schema

// PostgreSQL's CHANGE STREAM DDL, which PostgreSQL's grammar (and so pg_query) lacks,
// read by a small parser of its own and lowered to the GoogleSQL statement with the same
// effect, so both dialects build the same ChangeStream:
//
//	CREATE CHANGE STREAM name [FOR ALL | FOR t[(c, ...)], ...] [WITH (option = value, ...)]
//	ALTER CHANGE STREAM name {SET FOR ALL | SET FOR t[(c, ...)], ... | DROP FOR ALL |
//	                          SET (option = value, ...) | RESET (option, ...)}
//	DROP CHANGE STREAM name

import (
	"sort"
	"strings"
	"unicode"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// isPGChangeStream reports whether stmt is a CREATE, ALTER or DROP CHANGE STREAM.
func isPGChangeStream(stmt string) bool {
	w := strings.Fields(strings.ToUpper(stmt))
	return len(w) >= 3 && (w[0] == "CREATE" || w[0] == "ALTER" || w[0] == "DROP") && w[1] == "CHANGE" && w[2] == "STREAM"
}

// csTok is one token: an identifier or keyword (word), a string literal (str) or a
// punctuation mark.
type csTok struct {
	word, str, punct string
	quoted           bool // a "quoted" identifier: its case is kept
}

func lexPGStream(s string) ([]csTok, error) {
	var out []csTok
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '(' || c == ')' || c == ',' || c == '=' || c == ';':
			out = append(out, csTok{punct: string(c)})
			i++
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == byte(c) {
					if j+1 < len(s) && s[j+1] == byte(c) {
						b.WriteByte(s[j])
						j++
						continue
					}
					break
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, spanerr.InvalidArgument("[ERROR] unterminated quoted string; failed to parse the DDL statements.")
			}
			if c == '\'' {
				out = append(out, csTok{str: b.String()})
			} else {
				out = append(out, csTok{word: b.String(), quoted: true})
			}
			i = j + 1
		case c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '.' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			out = append(out, csTok{word: strings.ToLower(s[i:j])})
			i = j
		default:
			return nil, spanerr.InvalidArgument("[ERROR] syntax error at or near \"%c\"; failed to parse the DDL statements.", c)
		}
	}
	if n := len(out); n > 0 && out[n-1].punct == ";" {
		out = out[:n-1]
	}
	return out, nil
}

type pgStreamParser struct {
	toks []csTok
	pos  int
	out  strings.Builder
}

func (p *pgStreamParser) fail() error {
	near := "end of input"
	if p.pos < len(p.toks) {
		t := p.toks[p.pos]
		near = "\"" + t.word + t.str + t.punct + "\""
	}
	return spanerr.InvalidArgument("[ERROR] syntax error at or near %s; failed to parse the DDL statements.", near)
}

func (p *pgStreamParser) peek(word string) bool {
	return p.pos < len(p.toks) && !p.toks[p.pos].quoted && p.toks[p.pos].word == word
}

func (p *pgStreamParser) peekPunct(mark string) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].punct == mark
}

func (p *pgStreamParser) accept(word string) bool {
	if p.peek(word) {
		p.pos++
		return true
	}
	return false
}

func (p *pgStreamParser) expect(words ...string) error {
	for _, w := range words {
		if !p.accept(w) {
			return p.fail()
		}
	}
	return nil
}

func (p *pgStreamParser) punct(mark string) error {
	if !p.peekPunct(mark) {
		return p.fail()
	}
	p.pos++
	return nil
}

// name reads an identifier and writes it, quoted for GoogleSQL.
func (p *pgStreamParser) name() error {
	if p.pos >= len(p.toks) || p.toks[p.pos].word == "" {
		return p.fail()
	}
	p.out.WriteString("`" + p.toks[p.pos].word + "`")
	p.pos++
	return nil
}

// list reads "(" item, ... ")" (each by item) and writes it.
func (p *pgStreamParser) list(item func() error) error {
	if err := p.punct("("); err != nil {
		return err
	}
	p.out.WriteString("(")
	for first := true; !p.peekPunct(")"); first = false {
		if !first {
			if err := p.punct(","); err != nil {
				return err
			}
			p.out.WriteString(", ")
		}
		if err := item(); err != nil {
			return err
		}
	}
	p.pos++
	p.out.WriteString(")")
	return nil
}

// forClause reads what follows FOR: ALL, or tables with optional column lists.
func (p *pgStreamParser) forClause() error {
	if p.accept("all") {
		p.out.WriteString(" FOR ALL")
		return nil
	}
	p.out.WriteString(" FOR ")
	for first := true; first || p.peekPunct(","); first = false {
		if !first {
			p.pos++
			p.out.WriteString(", ")
		}
		if err := p.name(); err != nil {
			return err
		}
		if p.peekPunct("(") {
			if err := p.list(p.name); err != nil {
				return err
			}
		}
	}
	return nil
}

// option reads name = value (value a string or true / false), or with reset only a
// name (set to NULL), and writes it as a GoogleSQL option.
func (p *pgStreamParser) option(reset bool) func() error {
	return func() error {
		if p.pos >= len(p.toks) || p.toks[p.pos].word == "" {
			return p.fail()
		}
		p.out.WriteString(p.toks[p.pos].word + " = ")
		p.pos++
		if reset {
			p.out.WriteString("NULL")
			return nil
		}
		if err := p.punct("="); err != nil {
			return err
		}
		if p.pos >= len(p.toks) {
			return p.fail()
		}
		t := p.toks[p.pos]
		switch {
		case t.punct == "" && !t.quoted && t.word == "":
			p.out.WriteString("'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(t.str) + "'")
		case !t.quoted && (t.word == "true" || t.word == "false"):
			p.out.WriteString(t.word)
		default:
			return p.fail()
		}
		p.pos++
		return nil
	}
}

// lowerPGChangeStream lowers a PostgreSQL CREATE / ALTER / DROP CHANGE STREAM.
func lowerPGChangeStream(stmt string) (string, error) {
	toks, err := lexPGStream(stmt)
	if err != nil {
		return "", err
	}
	p := &pgStreamParser{toks: toks}
	verb := toks[0].word
	if err := p.expect(verb, "change", "stream"); err != nil {
		return "", err
	}
	p.out.WriteString(strings.ToUpper(verb) + " CHANGE STREAM ")
	if err := p.name(); err != nil {
		return "", err
	}
	switch verb {
	case "create":
		if p.accept("for") {
			if err := p.forClause(); err != nil {
				return "", err
			}
		}
		if p.accept("with") {
			p.out.WriteString(" OPTIONS ")
			if err := p.list(p.option(false)); err != nil {
				return "", err
			}
		}
	case "alter":
		switch {
		case p.accept("drop"):
			if err := p.expect("for", "all"); err != nil {
				return "", err
			}
			p.out.WriteString(" DROP FOR ALL")
		case p.accept("reset"):
			p.out.WriteString(" SET OPTIONS ")
			if err := p.list(p.option(true)); err != nil {
				return "", err
			}
		case p.accept("set"):
			if p.accept("for") {
				p.out.WriteString(" SET")
				if err := p.forClause(); err != nil {
					return "", err
				}
				break
			}
			p.out.WriteString(" SET OPTIONS ")
			if err := p.list(p.option(false)); err != nil {
				return "", err
			}
		default:
			return "", p.fail()
		}
	}
	if p.pos != len(p.toks) {
		return "", p.fail()
	}
	return p.out.String(), nil
}

// renderPG is the PostgreSQL CREATE CHANGE STREAM statement of s.
func (s *ChangeStream) renderPG() string {
	var b strings.Builder
	b.WriteString("CREATE CHANGE STREAM " + pgIdent(s.Name))
	switch {
	case s.All:
		b.WriteString(" FOR ALL")
	case len(s.Tables) > 0:
		parts := make([]string, len(s.Tables))
		for i, t := range s.Tables {
			parts[i] = pgIdent(t.Table)
			if !t.AllColumns {
				cols := make([]string, len(t.Columns))
				for j, c := range t.Columns {
					cols[j] = pgIdent(c)
				}
				parts[i] += "(" + strings.Join(cols, ", ") + ")"
			}
		}
		b.WriteString(" FOR " + strings.Join(parts, ", "))
	}
	if len(s.Options) > 0 {
		names := make([]string, 0, len(s.Options))
		for n := range s.Options {
			names = append(names, n)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, n := range names {
			v := s.Options[n]
			if changeStreamOptions[n] == "BOOL" {
				v = strings.ToLower(v)
			} else {
				v = "'" + strings.ReplaceAll(v, "'", "''") + "'"
			}
			parts[i] = n + " = " + v
		}
		b.WriteString(" WITH (" + strings.Join(parts, ", ") + ")")
	}
	return b.String()
}
