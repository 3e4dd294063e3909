package schema

import (
	"fmt"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

var scalarCodes = map[ast.ScalarTypeName]spannerpb.TypeCode{
	ast.BoolTypeName:      spannerpb.TypeCode_BOOL,
	ast.Int64TypeName:     spannerpb.TypeCode_INT64,
	ast.Float32TypeName:   spannerpb.TypeCode_FLOAT32,
	ast.Float64TypeName:   spannerpb.TypeCode_FLOAT64,
	ast.StringTypeName:    spannerpb.TypeCode_STRING,
	ast.BytesTypeName:     spannerpb.TypeCode_BYTES,
	ast.DateTypeName:      spannerpb.TypeCode_DATE,
	ast.TimestampTypeName: spannerpb.TypeCode_TIMESTAMP,
	ast.NumericTypeName:   spannerpb.TypeCode_NUMERIC,
	ast.JSONTypeName:      spannerpb.TypeCode_JSON,
}

// columnType converts a DDL column type to the wire type and the declared length
// of STRING/BYTES (0 for MAX or other types).
func (c *Catalog) columnType(st ast.SchemaType) (*spannerpb.Type, int64, error) {
	if n, ok := st.(*ast.NamedType); ok && len(n.Path) == 1 && strings.EqualFold(n.Path[0].Name, "UUID") {
		// memefish parses UUID as a named (proto) type.
		return &spannerpb.Type{Code: spannerpb.TypeCode_UUID}, 0, nil
	}
	switch t := st.(type) {
	case *ast.ScalarSchemaType:
		code, ok := scalarCodes[t.Name]
		if !ok {
			return nil, 0, spanerr.Unimplemented("column type %s at offset %d is not supported", t.Name, t.Pos())
		}
		return &spannerpb.Type{Code: code}, 0, nil
	case *ast.SizedSchemaType:
		code, ok := scalarCodes[t.Name]
		if !ok {
			return nil, 0, spanerr.Unimplemented("column type %s at offset %d is not supported", t.Name, t.Pos())
		}
		var n int64
		if !t.Max && t.Size != nil {
			v, err := strconv.ParseInt(t.Size.SQL(), 0, 64)
			if err != nil {
				return nil, 0, spanerr.InvalidArgument("bad length %s for %s", t.Size.SQL(), t.Name)
			}
			n = v
		}
		return &spannerpb.Type{Code: code}, n, nil
	case *ast.ArraySchemaType:
		elem, n, err := c.columnType(t.Item)
		if err != nil {
			return nil, 0, err
		}
		if elem.Code == spannerpb.TypeCode_ARRAY {
			return nil, 0, spanerr.InvalidArgument("arrays of arrays are not supported")
		}
		return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: elem}, n, nil
	case *ast.NamedType:
		// A message or enum type of the proto bundle: a PROTO or ENUM column.
		name := namedTypeName(t)
		typ, err := c.ProtoType(name)
		if err != nil && !strings.Contains(name, ".") {
			// Not a bundled type, nor shaped like one: a misspelt scalar type, which
			// Spanner's parser rejects (see unknownTypeError).
			return nil, 0, &unknownTypeError{pos: int(t.Pos()), end: int(t.End())}
		}
		return typ, 0, err
	default:
		return nil, 0, spanerr.Unimplemented("column type %s is not supported", st.SQL())
	}
}

// TypeDDL renders a column type as Spanner DDL (STRING(MAX), ARRAY<INT64>, ...).
func TypeDDL(t *spannerpb.Type, length int64) string {
	if t.Code == spannerpb.TypeCode_ARRAY {
		return "ARRAY<" + TypeDDL(t.ArrayElementType, length) + ">"
	}
	if t.ProtoTypeFqn != "" {
		return t.ProtoTypeFqn // PROTO and ENUM columns are shown by their type's name
	}
	name := t.Code.String()
	switch t.Code {
	case spannerpb.TypeCode_STRING, spannerpb.TypeCode_BYTES:
		if length > 0 {
			return fmt.Sprintf("%s(%d)", name, length)
		}
		return name + "(MAX)"
	}
	return name
}

// SQLiteType is the declared SQLite type for a column of type t: it sets the
// column affinity of the storage encoding. TIMESTAMP and DATE are declared TEXT
// so that the driver never converts them to time.Time.
func SQLiteType(t *spannerpb.Type) string {
	switch t.Code {
	case spannerpb.TypeCode_INT64, spannerpb.TypeCode_BOOL, spannerpb.TypeCode_ENUM:
		return "INTEGER"
	case spannerpb.TypeCode_FLOAT64, spannerpb.TypeCode_FLOAT32:
		return "REAL"
	case spannerpb.TypeCode_BYTES, spannerpb.TypeCode_PROTO:
		return "BLOB"
	default:
		return "TEXT"
	}
}
