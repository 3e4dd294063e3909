package exec

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/token"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/query"
)

// IsDML reports whether a statement starts with INSERT, UPDATE or DELETE (after
// comments and a statement hint), using memefish's lexer.
func IsDML(sql string) (dml bool) {
	defer func() {
		if recover() != nil {
			dml = false // the query layer reports the syntax error
		}
	}()
	lx := &memefish.Lexer{File: &token.File{Buffer: sql}}
	depth := 0
	for i := 0; i < 64; i++ {
		if err := lx.NextToken(); err != nil || lx.Token.Kind == token.TokenEOF {
			return false
		}
		switch {
		case lx.Token.Kind == "@" && depth == 0:
			continue
		case lx.Token.Kind == "{":
			depth++
			continue
		case lx.Token.Kind == "}":
			depth--
			continue
		case depth > 0:
			continue
		}
		switch strings.ToUpper(lx.Token.Raw) {
		case "INSERT", "UPDATE", "DELETE":
			return true
		}
		return false
	}
	return false
}

func toParams(fields map[string]*structpb.Value, types map[string]*spannerpb.Type) (query.Params, error) {
	for _, t := range types {
		if err := checkType(t); err != nil {
			return nil, err // Spanner's message names the type, not the parameter
		}
	}
	if len(fields) == 0 {
		return nil, nil
	}
	p := make(query.Params, len(fields))
	for name, v := range fields {
		p[name] = query.Param{Value: v, Type: types[name]}
	}
	return p, nil
}

// checkType rejects malformed wire types (an ARRAY without element type, ...).
func checkType(t *spannerpb.Type) error {
	switch t.GetCode() {
	case spannerpb.TypeCode_TYPE_CODE_UNSPECIFIED:
		return spanerr.InvalidArgument("Type code must be specified, found %v", t)
	case spannerpb.TypeCode_ARRAY:
		if t.ArrayElementType == nil {
			return spanerr.InvalidArgument("Array types must specify element type, found %v", t)
		}
		return checkType(t.ArrayElementType)
	case spannerpb.TypeCode_STRUCT:
		if t.StructType == nil {
			return spanerr.InvalidArgument("STRUCT type without fields")
		}
		for _, f := range t.StructType.Fields {
			if err := checkType(f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}
