package schema

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The location of an error in a statement's text, as GoogleSQL's analyzer reports it
// in Spanner: "[at line:column]", then the line and a caret under the column
// (ZetaSQL's ERROR_MESSAGE_MULTI_LINE_WITH_CARET, which the official emulator sets in
// backend/query/analyzer_options.cc; python-spanner's test_database_partitioned_error
// expects "Table not found: NonExistent [at 1:8]\nUPDATE NonExistent SET ...\n       ^").
// A line longer than maxCaretWidth is cut to that width around the column, "..."
// marking the cuts (zetasql/public/error_helpers.cc, GetErrorStringWithCaret).
const maxCaretWidth = 80

// LineCol renders a byte offset of text as Spanner's "line:column" (both from 1).
func LineCol(text string, offset int) string {
	line, col, ok := lineCol(text, offset)
	if !ok {
		return "?"
	}
	return strconv.Itoa(line) + ":" + strconv.Itoa(col)
}

func lineCol(text string, offset int) (line, col int, ok bool) {
	if offset < 0 || offset > len(text) {
		return 0, 0, false
	}
	return 1 + strings.Count(text[:offset], "\n"), offset - strings.LastIndexByte(text[:offset], '\n'), true
}

// At is the location of the error at a byte offset of text: "[at line:column]", a
// newline, the line (cut to maxCaretWidth) and a line with a caret under the column.
func At(text string, offset int) string {
	line, col, ok := lineCol(text, offset)
	if !ok {
		return "[at ?]"
	}
	start := offset - (col - 1)
	end := strings.IndexByte(text[start:], '\n')
	if end < 0 {
		end = len(text) - start
	}
	shown, caret := caretLine(strings.TrimSuffix(text[start:start+end], "\r"), col-1, maxCaretWidth)
	return "[at " + strconv.Itoa(line) + ":" + strconv.Itoa(col) + "]\n" + shown + "\n" + strings.Repeat(" ", caret) + "^"
}

// caretLine cuts s to width bytes around byte column col (from 0) as ZetaSQL does:
// when col is past the last third, the shown text starts at a word that puts it in
// the middle third (or half a width before it), after "..."; a text still too long
// ends in "..." (not inside a UTF-8 character). It returns the text and the caret's
// column in it.
func caretLine(s string, col, width int) (string, int) {
	col = min(max(col, 0), len(s))
	if len(s) <= width {
		return s, col
	}
	half, third := width/2, width/3
	if col > width-third {
		start := -1
		for i := max(0, col-2*third); i < max(0, col-third); i++ {
			if wordStart(s, i) {
				start = i
				break
			}
		}
		if start == -1 {
			start = max(col-half, 0)
		}
		if start >= 3 {
			s = "..." + s[start:]
			col -= start - 3
		}
	}
	if len(s) > width {
		cut := width - 3
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s, col
}

func wordStart(s string, i int) bool {
	if i == 0 || i >= len(s) {
		return true
	}
	return !wordChar(s[i-1]) && wordChar(s[i])
}

func wordChar(c byte) bool {
	return c == '_' || c < utf8.RuneSelf && (unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)))
}
