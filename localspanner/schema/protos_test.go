package schema

import (
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

func testDescriptors(t *testing.T) []byte {
	t.Helper()
	fd := &descriptorpb.FileDescriptorProto{
		Name: proto.String("t.proto"), Package: proto.String("p"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M"), Field: []*descriptorpb.FieldDescriptorProto{{
			Name: proto.String("s"), Number: proto.Int32(1), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
		}}}},
		EnumType: []*descriptorpb.EnumDescriptorProto{{Name: proto.String("E"), Value: []*descriptorpb.EnumValueDescriptorProto{
			{Name: proto.String("ZERO"), Number: proto.Int32(0)}, {Name: proto.String("TWO"), Number: proto.Int32(2)},
		}}},
	}
	b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{fd}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The descriptors travel with the bundle statement in the DDL log, so a catalog rebuilt
// from the log (a restart) has the same PROTO and ENUM columns.
func TestProtoBundleReplays(t *testing.T) {
	desc := testDescriptors(t)
	stmts := []string{
		WithDescriptors("CREATE PROTO BUNDLE (p.M, p.E)", desc),
		"CREATE TABLE T (Id INT64, M p.M, E p.E, Es ARRAY<p.E>) PRIMARY KEY (Id)",
	}
	cat, err := Build(stmts)
	if err != nil {
		t.Fatal(err)
	}
	tab, _ := cat.Table("T")
	m, _ := tab.Column("M")
	e, _ := tab.Column("E")
	es, _ := tab.Column("Es")
	if m.Type.Code != spannerpb.TypeCode_PROTO || m.Type.ProtoTypeFqn != "p.M" || e.Type.Code != spannerpb.TypeCode_ENUM ||
		es.Type.ArrayElementType.ProtoTypeFqn != "p.E" {
		t.Fatalf("types: %v / %v / %v", m.Type, e.Type, es.Type)
	}
	if !cat.EnumHasValue(e.Type, 2) || cat.EnumHasValue(e.Type, 1) {
		t.Fatal("EnumHasValue does not follow the descriptor")
	}
	if got := strings.Join(cat.DDL(), "\n"); !strings.Contains(got, "CREATE PROTO BUNDLE (\n  p.M,\n  p.E\n)") || !strings.Contains(got, "  Es ARRAY<p.E>,") {
		t.Fatalf("DDL:\n%s", got)
	}
	if string(cat.Protos().Descriptors) != string(desc) {
		t.Fatal("descriptors not kept")
	}
	_, err = Build([]string{"CREATE PROTO BUNDLE (p.M)"})
	if spanerr.Code(err, codes.Unknown) != codes.InvalidArgument {
		t.Fatalf("a bundle without descriptors: %v", err)
	}
	_, err = Build([]string{WithDescriptors("CREATE PROTO BUNDLE (p.Nope)", desc)})
	if spanerr.Code(err, codes.Unknown) != codes.NotFound {
		t.Fatalf("a type the descriptors lack: %v", err)
	}
}
