package schema

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// ProtoBundle is the database's proto bundle: the message and enum types that PROTO
// and ENUM columns may use, and the FileDescriptorSet they were given with.
type ProtoBundle struct {
	Types       []string // fully qualified names, in the order of the DDL
	Descriptors []byte   // the serialized FileDescriptorSet
	files       *protoregistry.Files
}

// descriptorsMark starts the line that a proto bundle statement carries its
// descriptors on, in the DDL log (a comment, so the statement still parses).
const descriptorsMark = "\n-- spanload proto_descriptors: "

// WithDescriptors returns stmt with the request's proto_descriptors attached when it is
// a CREATE or ALTER PROTO BUNDLE statement (the descriptors are then replayed with it);
// other statements are returned as they are.
func WithDescriptors(stmt string, descriptors []byte) string {
	if len(descriptors) == 0 || !isProtoBundleStmt(stmt) {
		return stmt
	}
	return stmt + descriptorsMark + base64.StdEncoding.EncodeToString(descriptors)
}

func isProtoBundleStmt(stmt string) bool {
	f := strings.Fields(strings.ToUpper(stmt))
	return len(f) >= 3 && (f[0] == "CREATE" || f[0] == "ALTER") && f[1] == "PROTO" && strings.HasPrefix(f[2], "BUNDLE")
}

// attachedDescriptors reads the descriptors that WithDescriptors attached to text.
func attachedDescriptors(text string) ([]byte, bool, error) {
	i := strings.LastIndex(text, descriptorsMark)
	if i < 0 {
		return nil, false, nil
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text[i+len(descriptorsMark):]))
	if err != nil {
		return nil, false, spanerr.InvalidArgument("bad proto descriptors: %v", err)
	}
	return b, true, nil
}

// StripDescriptors drops the descriptors WithDescriptors attached to a statement's text.
func StripDescriptors(text string) string {
	if i := strings.LastIndex(text, descriptorsMark); i >= 0 {
		return text[:i]
	}
	return text
}

func parseDescriptors(b []byte) (*protoregistry.Files, error) {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(b, &set); err != nil {
		return nil, spanerr.InvalidArgument("Invalid proto descriptors: the FileDescriptorSet does not parse: %v", err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, spanerr.InvalidArgument("Invalid proto descriptors: %v", err)
	}
	return files, nil
}

func bundleTypeNames(t *ast.ProtoBundleTypes) []string {
	if t == nil {
		return nil
	}
	out := make([]string, len(t.Types))
	for i, nt := range t.Types {
		out[i] = namedTypeName(nt)
	}
	return out
}

func namedTypeName(nt *ast.NamedType) string { return joinIdents(nt.Path) }

// setBundle checks that every type of b is a message or enum of its descriptors.
func (c *Catalog) setBundle(b *ProtoBundle) error {
	seen := map[string]bool{}
	for _, name := range b.Types {
		if seen[name] {
			return spanerr.FailedPrecondition("Duplicate type %s in the proto bundle.", name)
		}
		seen[name] = true
		if _, err := b.files.FindDescriptorByName(protoreflect.FullName(name)); err != nil {
			return spanerr.NotFound("Type not found: `%s`", name)
		}
	}
	c.protos = b
	return nil
}

func (c *Catalog) createProtoBundle(s *ast.CreateProtoBundle, text string) error {
	if c.protos != nil {
		return spanerr.FailedPrecondition("The database already has a proto bundle: use ALTER PROTO BUNDLE.")
	}
	raw, ok, err := attachedDescriptors(text)
	if err != nil {
		return err
	}
	if !ok {
		return spanerr.InvalidArgument("CREATE PROTO BUNDLE needs proto_descriptors in the request.")
	}
	files, err := parseDescriptors(raw)
	if err != nil {
		return err
	}
	return c.setBundle(&ProtoBundle{Types: bundleTypeNames(s.Types), Descriptors: raw, files: files})
}

func (c *Catalog) alterProtoBundle(s *ast.AlterProtoBundle, text string) error {
	old := c.protos
	if old == nil {
		return spanerr.FailedPrecondition("The database has no proto bundle: use CREATE PROTO BUNDLE.")
	}
	b := &ProtoBundle{Descriptors: old.Descriptors, files: old.files}
	if raw, ok, err := attachedDescriptors(text); err != nil {
		return err
	} else if ok {
		files, err := parseDescriptors(raw)
		if err != nil {
			return err
		}
		b.Descriptors, b.files = raw, files
	}
	var deleted []string
	if s.Delete != nil {
		deleted = bundleTypeNames(s.Delete.Types)
	}
	for _, name := range old.Types {
		keep := true
		for _, d := range deleted {
			keep = keep && d != name
		}
		if keep {
			b.Types = append(b.Types, name)
		}
	}
	for _, d := range deleted {
		if !containsString(old.Types, d) {
			return spanerr.NotFound("Type not found: `%s`", d)
		}
		if col := c.columnOfType(d); col != "" {
			return spanerr.FailedPrecondition("Removed type %s is still being used by column %s", d, col)
		}
	}
	if s.Update != nil {
		for _, u := range bundleTypeNames(s.Update.Types) {
			if !containsString(old.Types, u) {
				return spanerr.NotFound("Type not found: `%s`", u)
			}
		}
	}
	if s.Insert != nil {
		b.Types = append(b.Types, bundleTypeNames(s.Insert.Types)...)
	}
	if err := c.setBundle(b); err != nil {
		return err
	}
	return c.recheckProtoColumns()
}

func (c *Catalog) dropProtoBundle() error {
	if c.protos == nil {
		return spanerr.NotFound("The database has no proto bundle.")
	}
	for _, name := range c.protos.Types {
		if col := c.columnOfType(name); col != "" {
			return spanerr.FailedPrecondition("Removed type %s is still being used by column %s", name, col)
		}
	}
	c.protos = nil
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// columnOfType names a column (Table.Column) whose type is the proto or enum type name.
func (c *Catalog) columnOfType(name string) string {
	for _, t := range c.Tables {
		for _, col := range t.Columns {
			ct := col.Type
			if ct.ArrayElementType != nil {
				ct = ct.ArrayElementType
			}
			if ct.ProtoTypeFqn == name {
				return t.Name + "." + col.Name
			}
		}
	}
	return ""
}

// recheckProtoColumns checks that PROTO columns still name messages and ENUM columns
// enums after the bundle changed.
func (c *Catalog) recheckProtoColumns() error {
	for _, t := range c.Tables {
		for _, col := range t.Columns {
			ct := col.Type
			if ct.ArrayElementType != nil {
				ct = ct.ArrayElementType
			}
			if ct.ProtoTypeFqn == "" {
				continue
			}
			if _, err := c.ProtoType(ct.ProtoTypeFqn); err != nil {
				return err
			}
		}
	}
	return nil
}

// ProtoType is the PROTO or ENUM type of a bundle type name.
func (c *Catalog) ProtoType(name string) (*spannerpb.Type, error) {
	if c.protos == nil || !containsString(c.protos.Types, name) {
		return nil, spanerr.NotFound("Type not found: `%s`", name)
	}
	d, err := c.protos.files.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return nil, spanerr.NotFound("Type not found: `%s`", name)
	}
	switch d.(type) {
	case protoreflect.MessageDescriptor:
		return &spannerpb.Type{Code: spannerpb.TypeCode_PROTO, ProtoTypeFqn: name}, nil
	case protoreflect.EnumDescriptor:
		return &spannerpb.Type{Code: spannerpb.TypeCode_ENUM, ProtoTypeFqn: name}, nil
	}
	return nil, spanerr.NotFound("Type not found: `%s`", name)
}

// Key names the bundle's descriptors (a digest of them), for sqlfn.RegisterProtoFiles.
func (b *ProtoBundle) Key() string {
	sum := sha256.Sum256(b.Descriptors)
	return hex.EncodeToString(sum[:8])
}

// Files are the bundle's descriptors.
func (b *ProtoBundle) Files() *protoregistry.Files { return b.files }

// Protos returns the proto bundle, or nil.
func (c *Catalog) Protos() *ProtoBundle { return c.protos }

// EnumHasValue reports whether the ENUM type t has the number n.
func (c *Catalog) EnumHasValue(t *spannerpb.Type, n int64) bool {
	ed, ok := c.enumDescriptor(t)
	return ok && ed.Values().ByNumber(protoreflect.EnumNumber(n)) != nil
}

// EnumNumber is the number of the value called name of the ENUM type t.
func (c *Catalog) EnumNumber(t *spannerpb.Type, name string) (int64, bool) {
	if ed, ok := c.enumDescriptor(t); ok {
		if v := ed.Values().ByName(protoreflect.Name(name)); v != nil {
			return int64(v.Number()), true
		}
	}
	return 0, false
}

func (c *Catalog) enumDescriptor(t *spannerpb.Type) (protoreflect.EnumDescriptor, bool) {
	if c.protos == nil {
		return nil, false
	}
	d, err := c.protos.files.FindDescriptorByName(protoreflect.FullName(t.GetProtoTypeFqn()))
	if err != nil {
		return nil, false
	}
	ed, ok := d.(protoreflect.EnumDescriptor)
	return ed, ok
}

// ddl renders the bundle as Spanner's CREATE PROTO BUNDLE statement.
func (b *ProtoBundle) ddl() string {
	return "CREATE PROTO BUNDLE (\n  " + strings.Join(b.Types, ",\n  ") + "\n)"
}
