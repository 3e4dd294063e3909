package query

import (
	"strconv"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/spanload/spanload/localspanner/value"
)

func scalar(c spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: c} }

var (
	tInt64     = scalar(spannerpb.TypeCode_INT64)
	tFloat64   = scalar(spannerpb.TypeCode_FLOAT64)
	tFloat32   = scalar(spannerpb.TypeCode_FLOAT32)
	tBool      = scalar(spannerpb.TypeCode_BOOL)
	tString    = scalar(spannerpb.TypeCode_STRING)
	tBytes     = scalar(spannerpb.TypeCode_BYTES)
	tTimestamp = scalar(spannerpb.TypeCode_TIMESTAMP)
	tDate      = scalar(spannerpb.TypeCode_DATE)
	tNumeric   = scalar(spannerpb.TypeCode_NUMERIC)
	tJSON      = scalar(spannerpb.TypeCode_JSON)
	tUUID      = scalar(spannerpb.TypeCode_UUID)
)

func arrayOf(elem *spannerpb.Type) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: elem}
}

func code(t *spannerpb.Type) spannerpb.TypeCode { return t.GetCode() }

func isNumeric(t *spannerpb.Type) bool {
	switch code(t) {
	case spannerpb.TypeCode_INT64, spannerpb.TypeCode_FLOAT64, spannerpb.TypeCode_FLOAT32, spannerpb.TypeCode_NUMERIC:
		return true
	}
	return false
}

func isFloat(t *spannerpb.Type) bool {
	return code(t) == spannerpb.TypeCode_FLOAT64 || code(t) == spannerpb.TypeCode_FLOAT32
}

func sameType(a, b *spannerpb.Type) bool { return proto.Equal(a, b) }

func typeName(t *spannerpb.Type) string {
	if t == nil {
		return "NULL"
	}
	return value.TypeString(t)
}

// commonType is the supertype of a and b (nil stands for an untyped NULL), or false.
func commonType(a, b *spannerpb.Type) (*spannerpb.Type, bool) {
	switch {
	case a == nil:
		return b, true
	case b == nil:
		return a, true
	case sameType(a, b):
		return a, true
	case code(a) == spannerpb.TypeCode_STRUCT && code(b) == spannerpb.TypeCode_STRUCT:
		// STRUCTs with the same field types coerce, whatever their field names.
		fa, fb := a.GetStructType().GetFields(), b.GetStructType().GetFields()
		if len(fa) != len(fb) {
			return nil, false
		}
		for i := range fa {
			if !sameType(fa[i].GetType(), fb[i].GetType()) {
				return nil, false
			}
		}
		return a, true
	case isNumeric(a) && isNumeric(b):
		if code(a) == spannerpb.TypeCode_NUMERIC && code(b) == spannerpb.TypeCode_INT64 ||
			code(b) == spannerpb.TypeCode_NUMERIC && code(a) == spannerpb.TypeCode_INT64 {
			return tNumeric, true
		}
		return tFloat64, true
	}
	return nil, false
}

// astType converts a memefish type to a Spanner type.
func astType(t ast.Type) (*spannerpb.Type, error) {
	switch x := t.(type) {
	case *ast.SimpleType:
		return scalarByName(string(x.Name), x)
	case *ast.ArrayType:
		elem, err := astType(x.Item)
		if err != nil {
			return nil, err
		}
		return arrayOf(elem), nil
	case *ast.NamedType:
		if len(x.Path) == 1 {
			return scalarByName(x.Path[0].Name, x)
		}
	case *ast.StructType:
		st := &spannerpb.StructType{}
		for _, f := range x.Fields {
			ft, err := astType(f.Type)
			if err != nil {
				return nil, err
			}
			name := ""
			if f.Ident != nil {
				name = f.Ident.Name
			}
			st.Fields = append(st.Fields, &spannerpb.StructType_Field{Name: name, Type: ft})
		}
		return &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: st}, nil
	}
	return nil, errorf(codes.Unimplemented, "type %s is not supported", t.SQL())
}

func scalarByName(name string, n ast.Node) (*spannerpb.Type, error) {
	switch upper(name) {
	case "INT64":
		return tInt64, nil
	case "FLOAT64":
		return tFloat64, nil
	case "FLOAT32":
		return tFloat32, nil
	case "BOOL":
		return tBool, nil
	case "STRING":
		return tString, nil
	case "BYTES":
		return tBytes, nil
	case "TIMESTAMP":
		return tTimestamp, nil
	case "DATE":
		return tDate, nil
	case "NUMERIC":
		return tNumeric, nil
	case "JSON":
		return tJSON, nil
	case "UUID":
		return tUUID, nil
	}
	return nil, errorf(codes.Unimplemented, "type %s is not supported", n.SQL())
}

func upper(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'a' && b[j] <= 'z' {
					b[j] -= 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
