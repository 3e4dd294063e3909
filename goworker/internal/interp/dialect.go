package interp

// The PostgreSQL dialect (dialect: postgresql): what differs from GoogleSQL in a definition's
// statements and values. The Go twin of backend/spanload/workers/interp/sql_pg.py.

import (
	"fmt"
	"strconv"

	"cloud.google.com/go/spanner"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

// PG reports whether the definition is in the PostgreSQL dialect.
func (def *Definition) PG() bool { return def.Dialect == protocol.DialectPostgresql }

// checkDialect refuses a dialect this interpreter does not know.
func checkDialect(def *Definition) error {
	switch def.Dialect {
	case "", protocol.DialectGooglesql, protocol.DialectPostgresql:
		return nil
	}
	return fmt.Errorf("dialect %q: the Go interpreter runs %s and %s definitions", def.Dialect,
		protocol.DialectGooglesql, protocol.DialectPostgresql)
}

// pgParams are a PostgreSQL statement's $1, $2 ... parameters as the names Spanner's wire gives
// them (p1, p2 ...), in order of first appearance, outside string literals ('...' with ”,
// E'...' with backslash escapes, $tag$...$tag$), quoted identifiers and comments.
func pgParams(sql string) []string {
	var out []string
	seen := map[string]bool{}
	n := len(sql)
	for i := 0; i < n; {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			escaped := c == '\'' && i > 0 && (sql[i-1] == 'e' || sql[i-1] == 'E') && (i < 2 || !isAlnum(sql[i-2]))
			i = skipQuoted(sql, i, escaped)
		case c == '-' && i+1 < n && sql[i+1] == '-':
			for i < n && sql[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && sql[i+1] == '*':
			i = skipBlockComment(sql, i)
		case c == '$':
			j := i + 1
			for j < n && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			if j > i+1 {
				number, _ := strconv.Atoi(sql[i+1 : j])
				name := "p" + strconv.Itoa(number)
				if !seen[name] {
					seen[name] = true
					out = append(out, name)
				}
				i = j
				continue
			}
			i = skipDollarQuoted(sql, i)
		case isAlnum(c) || c == '_': // an identifier may hold $ (a$1 is one name)
			for i < n && (isAlnum(sql[i]) || sql[i] == '_' || sql[i] == '$') {
				i++
			}
		default:
			i++
		}
	}
	return out
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// skipQuoted is the index just past the literal or quoted identifier that starts at sql[i] (a
// doubled quote stands for one; backslash escapes when escaped).
func skipQuoted(sql string, i int, escaped bool) int {
	quote := sql[i]
	j := i + 1
	for j < len(sql) {
		switch {
		case escaped && sql[j] == '\\':
			j += 2
			continue
		case sql[j] == quote && j+1 < len(sql) && sql[j+1] == quote:
			j += 2
			continue
		case sql[j] == quote:
			return j + 1
		}
		j++
	}
	return j
}

// skipBlockComment is the index past the /* ... */ at sql[i] (PostgreSQL's nest).
func skipBlockComment(sql string, i int) int {
	depth := 0
	for j := i; j+1 < len(sql); j++ {
		switch {
		case sql[j] == '/' && sql[j+1] == '*':
			depth++
			j++
		case sql[j] == '*' && sql[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(sql)
}

// skipDollarQuoted is the index past the $tag$...$tag$ string at sql[i], or past the $ when none
// starts there.
func skipDollarQuoted(sql string, i int) int {
	j := i + 1
	for j < len(sql) && (sql[j] == '_' || isAlnum(sql[j]) && !(j == i+1 && sql[j] >= '0' && sql[j] <= '9')) {
		j++
	}
	if j >= len(sql) || sql[j] != '$' {
		return i + 1
	}
	tag := sql[i : j+1]
	for k := j + 1; k+len(tag) <= len(sql); k++ {
		if sql[k:k+len(tag)] == tag {
			return k + len(tag)
		}
	}
	return len(sql)
}

// pgClientValue is a drawn value as the official client sends it to a PostgreSQL database:
// NUMERIC is PG_NUMERIC there (Spanner's PG-dialect docs: numeric); every other type is the same.
func pgClientValue(v any) any {
	switch x := v.(type) {
	case Decimal:
		return spanner.PGNumeric{Numeric: x.Rat.FloatString(x.Scale), Valid: true}
	case spanner.NullNumeric:
		if !x.Valid {
			return spanner.PGNumeric{}
		}
		return spanner.PGNumeric{Numeric: x.Numeric.FloatString(spanner.NumericScaleDigits), Valid: true}
	}
	return v
}
