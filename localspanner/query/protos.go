package query

import (
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/spanload/spanload/localspanner/sqlfn"
)

// protoField compiles msg.field on a PROTO value: the field is read from the serialized
// message by sp_proto_field with the proto bundle's descriptors.
func (c *compiler) protoField(id *ast.Ident, base expr) (expr, error) {
	fqn := base.t.GetProtoTypeFqn()
	if c.cat == nil || c.cat.Protos() == nil {
		return expr{}, c.invalid(id, "Type not found: %s", fqn)
	}
	bundle := c.cat.Protos()
	d, err := bundle.Files().FindDescriptorByName(protoreflect.FullName(fqn))
	md, ok := d.(protoreflect.MessageDescriptor)
	if err != nil || !ok {
		return expr{}, c.invalid(id, "Type not found: %s", fqn)
	}
	fd := md.Fields().ByName(protoreflect.Name(id.Name))
	if fd == nil {
		for i := 0; i < md.Fields().Len(); i++ {
			if f := md.Fields().Get(i); strings.EqualFold(string(f.Name()), id.Name) {
				fd = f
			}
		}
	}
	if fd == nil {
		return expr{}, c.invalid(id, "Field name %s does not exist in %s", id.Name, fqn)
	}
	t, ok := protoFieldType(fd)
	if !ok {
		return expr{}, c.unsupported(id, "the proto field kind "+fd.Kind().String())
	}
	key := c.registerBundle()
	s := "sp_proto_field(" + base.sql + ", " + sqlString(key) + ", " + sqlString(fqn) + ", " + strconv.Itoa(int(fd.Number())) + ")"
	return expr{sql: s, t: t}, nil
}

// protoFieldType is the GoogleSQL type of a proto field: integers are INT64, floats
// FLOAT64, enums and messages ENUM and PROTO of their type, repeated fields ARRAYs.
func protoFieldType(fd protoreflect.FieldDescriptor) (*spannerpb.Type, bool) {
	var t *spannerpb.Type
	switch fd.Kind() {
	case protoreflect.BoolKind:
		t = tBool
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.Int64Kind,
		protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Uint32Kind, protoreflect.Fixed32Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		t = tInt64
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		t = tFloat64
	case protoreflect.StringKind:
		t = tString
	case protoreflect.BytesKind:
		t = tBytes
	case protoreflect.EnumKind:
		t = &spannerpb.Type{Code: spannerpb.TypeCode_ENUM, ProtoTypeFqn: string(fd.Enum().FullName())}
	case protoreflect.MessageKind:
		if fd.IsMap() {
			return nil, false
		}
		t = &spannerpb.Type{Code: spannerpb.TypeCode_PROTO, ProtoTypeFqn: string(fd.Message().FullName())}
	default:
		return nil, false
	}
	if fd.IsList() {
		t = arrayOf(t)
	}
	return t, true
}

// castProto compiles CAST(x AS <bundled type>): to an ENUM from its name (STRING) or
// number (INT64), to a PROTO from BYTES (the serialized message).
func (c *compiler) castProto(x *ast.CastExpr, nt *ast.NamedType, sc *scope) (expr, error) {
	name := nt.SQL()
	if c.cat == nil || c.cat.Protos() == nil {
		return expr{}, c.invalid(nt, "Type not found: %s", name)
	}
	to, err := c.cat.ProtoType(name)
	if err != nil {
		return expr{}, c.invalid(nt, "Type not found: %s", name)
	}
	in, err := c.expr(x.Expr, sc, to)
	if err != nil {
		return expr{}, err
	}
	switch {
	case in.t == nil || sameType(in.t, to):
		return expr{sql: in.sql, t: to}, nil
	case code(to) == spannerpb.TypeCode_PROTO && code(in.t) == spannerpb.TypeCode_BYTES:
		return expr{sql: in.sql, t: to}, nil
	case code(to) == spannerpb.TypeCode_ENUM && (code(in.t) == spannerpb.TypeCode_INT64 || code(in.t) == spannerpb.TypeCode_STRING):
		if x.Safe {
			return expr{}, c.unsupported(x, "SAFE_CAST to an enum type")
		}
		key := c.registerBundle()
		return expr{sql: "sp_enum_value(" + in.sql + ", " + sqlString(key) + ", " + sqlString(name) + ")", t: to}, nil
	}
	return expr{}, c.invalid(x, "Invalid cast from %s to %s", typeName(in.t), name)
}

// castFromProto compiles CAST of an ENUM to STRING (its name) or INT64 (its number), and
// of a PROTO to BYTES.
func (c *compiler) castFromProto(x *ast.CastExpr, in expr, to *spannerpb.Type) (expr, error) {
	switch {
	case code(in.t) == spannerpb.TypeCode_ENUM && code(to) == spannerpb.TypeCode_INT64,
		code(in.t) == spannerpb.TypeCode_PROTO && code(to) == spannerpb.TypeCode_BYTES:
		return expr{sql: in.sql, t: to}, nil
	case code(in.t) == spannerpb.TypeCode_ENUM && code(to) == spannerpb.TypeCode_STRING && c.cat != nil && c.cat.Protos() != nil:
		key := c.registerBundle()
		return expr{sql: "sp_enum_name(" + in.sql + ", " + sqlString(key) + ", " + sqlString(in.t.GetProtoTypeFqn()) + ")", t: to}, nil
	}
	return expr{}, c.invalid(x, "Invalid cast from %s to %s", typeName(in.t), typeName(to))
}

// registerBundle makes the catalog's proto bundle known to the sp_* proto functions and
// returns its key.
func (c *compiler) registerBundle() string {
	b := c.cat.Protos()
	key := b.Key()
	sqlfn.RegisterProtoFiles(key, b.Files())
	return key
}
