package sqlfn

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// protoFiles holds the proto bundles' descriptors that sp_proto_field reads messages
// with, by the key the query compiler names them with (a digest of the descriptors).
var protoFiles sync.Map

// RegisterProtoFiles makes a proto bundle's descriptors known to sp_proto_field under key.
func RegisterProtoFiles(key string, files *protoregistry.Files) { protoFiles.Store(key, files) }

// udfProtoField is sp_proto_field(message, bundle key, message type, field number): the
// field of a serialized message in the storage encoding (an unset field is its default,
// as GoogleSQL reads it; a repeated field is an ARRAY's JSON text).
func udfProtoField(msg any, key, fqn string, number int64) (any, error) {
	var raw []byte
	switch m := msg.(type) {
	case nil:
		return nil, nil
	case []byte:
		raw = m
	case string:
		raw = []byte(m)
	default:
		return nil, fmt.Errorf("sp_proto_field: a %T is not a message", msg)
	}
	f, ok := protoFiles.Load(key)
	if !ok {
		return nil, fmt.Errorf("sp_proto_field: unknown proto bundle %s", key)
	}
	d, err := f.(*protoregistry.Files).FindDescriptorByName(protoreflect.FullName(fqn))
	if err != nil {
		return nil, fmt.Errorf("sp_proto_field: %w", err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("sp_proto_field: %s is not a message", fqn)
	}
	m := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(raw, m); err != nil {
		return nil, fmt.Errorf("sp_proto_field: the value is not a %s message: %w", fqn, err)
	}
	fd := md.Fields().ByNumber(protoreflect.FieldNumber(number))
	if fd == nil {
		return nil, fmt.Errorf("sp_proto_field: %s has no field %d", fqn, number)
	}
	v := m.Get(fd)
	if fd.IsList() {
		list := v.List()
		elems := make([]any, list.Len())
		for i := range elems {
			cell, err := protoCell(fd, list.Get(i))
			if err != nil {
				return nil, err
			}
			switch c := cell.(type) {
			case []byte:
				elems[i] = base64.StdEncoding.EncodeToString(c)
			default:
				elems[i] = c
			}
		}
		b, err := json.Marshal(elems)
		return string(b), err
	}
	return protoCell(fd, v)
}

func protoCell(fd protoreflect.FieldDescriptor, v protoreflect.Value) (any, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		if v.Bool() {
			return int64(1), nil
		}
		return int64(0), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int(), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return int64(v.Uint()), nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return v.Float(), nil
	case protoreflect.StringKind:
		return v.String(), nil
	case protoreflect.BytesKind:
		return v.Bytes(), nil
	case protoreflect.EnumKind:
		return int64(v.Enum()), nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return proto.Marshal(v.Message().Interface())
	}
	return nil, fmt.Errorf("sp_proto_field: field %s has an unsupported kind %s", fd.FullName(), fd.Kind())
}

func enumDescriptor(key, fqn string) (protoreflect.EnumDescriptor, error) {
	f, ok := protoFiles.Load(key)
	if !ok {
		return nil, fmt.Errorf("unknown proto bundle %s", key)
	}
	d, err := f.(*protoregistry.Files).FindDescriptorByName(protoreflect.FullName(fqn))
	if err != nil {
		return nil, err
	}
	ed, ok := d.(protoreflect.EnumDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not an enum", fqn)
	}
	return ed, nil
}

// udfEnumName is sp_enum_name(number, bundle key, enum type): CAST(enum AS STRING).
func udfEnumName(n any, key, fqn string) (any, error) {
	i, ok := n.(int64)
	if !ok {
		return nil, nil
	}
	ed, err := enumDescriptor(key, fqn)
	if err != nil {
		return nil, err
	}
	if v := ed.Values().ByNumber(protoreflect.EnumNumber(i)); v != nil {
		return string(v.Name()), nil
	}
	return strconv.FormatInt(i, 10), nil
}

// udfEnumValue is sp_enum_value(x, bundle key, enum type): CAST(x AS enum) of an INT64
// (which must be one of the enum's numbers) or a STRING (one of its names).
func udfEnumValue(x any, key, fqn string) (any, error) {
	ed, err := enumDescriptor(key, fqn)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case nil:
		return nil, nil
	case int64:
		if ed.Values().ByNumber(protoreflect.EnumNumber(v)) != nil {
			return v, nil
		}
		return nil, rtErr("Out of range cast of integer %d to enum type %s", v, fqn)
	case string:
		if ev := ed.Values().ByName(protoreflect.Name(v)); ev != nil {
			return int64(ev.Number()), nil
		}
		return nil, rtInvalid("Could not cast %q to type %s", v, fqn)
	}
	return nil, rtInvalid("Invalid cast to enum type %s", fqn)
}
