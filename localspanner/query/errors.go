package query

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/token"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// errorf is a query-layer error with the gRPC code Spanner would answer.
// Unsupported constructs are codes.Unimplemented (or InvalidArgument for syntax
// errors); semantic errors (unknown table/column, type mismatch, missing parameter)
// are codes.InvalidArgument; runtime errors (overflow, division by zero) are
// codes.OutOfRange.
func errorf(code codes.Code, format string, args ...any) *spanerr.Error {
	return &spanerr.Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// syntaxWhat words a memefish syntax error as GoogleSQL's analyzer does: "Unexpected
// keyword FROM", "Unexpected end of statement", "Expected end of input but got
// identifier \"x\"", naming the token at the error's position.
func syntaxWhat(text string, e *memefish.Error) string {
	if e.Message == "" {
		return "Unexpected end of statement"
	}
	tok := tokenAt(trimSemicolon(text), e.Position.Pos)
	if strings.HasPrefix(e.Message, "expected token: <eof>,") && tok.Kind != token.TokenEOF {
		return "Expected end of input but got " + describeToken(tok)
	}
	if !strings.HasPrefix(e.Message, "expected") && !strings.HasPrefix(e.Message, "unexpected") {
		// A lexical error ("unclosed string literal", ...): memefish's words.
		return strings.ToUpper(e.Message[:1]) + e.Message[1:]
	}
	if tok.Kind == token.TokenEOF {
		return "Unexpected end of statement"
	}
	return "Unexpected " + describeToken(tok)
}

// tokenAt lexes text up to the token that starts at (or spans) pos.
func tokenAt(text string, pos token.Pos) token.Token {
	lx := &memefish.Lexer{File: &token.File{Buffer: text}}
	for {
		if !nextTokenSafe(lx) || lx.Token.Kind == token.TokenEOF || lx.Token.End > pos {
			return lx.Token
		}
	}
}

func nextTokenSafe(lx *memefish.Lexer) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return lx.NextToken() == nil
}

func describeToken(t token.Token) string {
	switch t.Kind {
	case token.TokenEOF:
		return "end of statement"
	case token.TokenIdent:
		return "identifier " + strconv.Quote(t.AsString)
	case token.TokenInt:
		return "integer literal " + strconv.Quote(t.Raw)
	case token.TokenFloat:
		return "floating point literal " + strconv.Quote(t.Raw)
	case token.TokenString:
		return "string literal " + strconv.Quote(t.AsString)
	case token.TokenBytes:
		return "bytes literal " + t.Raw
	case token.TokenParam:
		return "query parameter @" + t.AsString
	}
	if k := string(t.Kind); k != "" && (k[0] >= 'A' && k[0] <= 'Z' || k[0] >= 'a' && k[0] <= 'z') {
		return "keyword " + strings.ToUpper(k)
	}
	return strconv.Quote(t.Raw)
}
