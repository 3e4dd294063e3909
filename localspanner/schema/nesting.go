package schema

import (
	"strings"

	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/token"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// MaxNesting bounds how deeply brackets and CASE nest in SQL text, the same bound
// as the query compiler's expression depth (query.maxDepth): memefish's recursive
// descent needs one too.
const MaxNesting = 150

// CheckNesting rejects SQL text whose brackets ( "(", "[" ) or CASE ... END nest
// deeper than MaxNesting, before memefish parses it. memefish's parser looks ahead
// over the whole parenthesised text at every "(" (Parser.lookaheadSubQuery), so a
// 20,000-deep expression cost ~10 s of CPU in the parser alone, long before the
// compiler's depth limit saw it (issue 18, measured with
// `go test -bench HostileDepth -cpuprofile` in query/). This scan is one linear pass
// of memefish's own lexer, so strings, comments and quoted names are skipped as the
// parser would. Text the lexer cannot read is left to the parser to report.
func CheckNesting(text string) error {
	var lexErr error
	lx := &memefish.Lexer{File: &token.File{Buffer: text}}
	depth := 0
	for {
		if lexErr = nextToken(lx); lexErr != nil || lx.Token.Kind == token.TokenEOF {
			return nil
		}
		switch lx.Token.Kind {
		case "(", "[":
			depth++
		case ")", "]":
			depth--
		default:
			switch strings.ToUpper(lx.Token.Raw) {
			case "CASE":
				depth++
			case "END":
				depth--
			default:
				continue
			}
		}
		if depth > MaxNesting {
			return spanerr.InvalidArgument("Expression nesting exceeds the maximum depth of %d %s", MaxNesting, At(text, int(lx.Token.Pos)))
		}
	}
}

// nextToken advances the lexer; memefish panics on some malformed input.
func nextToken(lx *memefish.Lexer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = spanerr.InvalidArgument("unreadable token")
		}
	}()
	return lx.NextToken()
}
