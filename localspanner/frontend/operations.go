package frontend

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// operations keeps the long-running operations this server has run. Every
// operation here completes before its RPC returns; they are kept so that clients
// that poll GetOperation find them.
type operations struct {
	mu  sync.Mutex
	ops map[string]*longrunningpb.Operation
	seq int64
}

func newOperations() *operations { return &operations{ops: map[string]*longrunningpb.Operation{}} }

// finish records a completed operation under parent: with response, or failed with err.
func (o *operations) finish(parent string, meta, response proto.Message, err error) (*longrunningpb.Operation, error) {
	o.mu.Lock()
	o.seq++
	name := parent + "/operations/_auto_" + itoa(time.Now().UnixNano()) + "_" + itoa(o.seq)
	o.mu.Unlock()
	return o.finishNamed(name, meta, response, err)
}

// reserve claims the operation name parent/operations/id that a request chose
// (UpdateDatabaseDdl's operation_id): INVALID_ARGUMENT for an id Spanner would refuse,
// ALREADY_EXISTS when an operation has that name already.
func (o *operations) reserve(parent, id string) (string, error) {
	if !validOperationID(id) {
		return "", spanerr.InvalidArgument("Invalid operation id: %s.", id)
	}
	name := parent + "/operations/" + id
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.ops[name]; ok {
		return "", spanerr.AlreadyExists("Operation already exists: %s", name)
	}
	o.ops[name] = &longrunningpb.Operation{Name: name}
	return name, nil
}

// release gives back a name reserve claimed for a call that made no operation.
func (o *operations) release(name string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.ops, name)
}

// validOperationID: 2 to 128 characters, [a-z][a-z0-9_]*, as Spanner requires.
func validOperationID(id string) bool {
	if len(id) < 2 || len(id) > 128 || id[0] < 'a' || id[0] > 'z' {
		return false
	}
	for i := 1; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// finishNamed records a completed operation named name.
func (o *operations) finishNamed(name string, meta, response proto.Message, err error) (*longrunningpb.Operation, error) {
	op := &longrunningpb.Operation{Name: name, Done: true}
	if meta != nil {
		m, merr := anypb.New(meta)
		if merr != nil {
			return nil, merr
		}
		op.Metadata = m
	}
	if err != nil {
		op.Result = &longrunningpb.Operation_Error{Error: status.Convert(toStatus(err, nil)).Proto()}
	} else {
		if response == nil {
			response = &emptypb.Empty{}
		}
		r, rerr := anypb.New(response)
		if rerr != nil {
			return nil, rerr
		}
		op.Result = &longrunningpb.Operation_Response{Response: r}
	}
	o.mu.Lock()
	o.ops[name] = op
	o.mu.Unlock()
	return op, nil
}

func (o *operations) get(name string) (*longrunningpb.Operation, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	op, ok := o.ops[name]
	if !ok {
		return nil, spanerr.NotFound("Operation not found: %s", name)
	}
	return op, nil
}

func (o *operations) list(parent string) []*longrunningpb.Operation {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*longrunningpb.Operation
	for name, op := range o.ops {
		if strings.HasPrefix(name, parent+"/") {
			out = append(out, op)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// operationsServer serves google.longrunning.Operations.
type operationsServer struct {
	longrunningpb.UnimplementedOperationsServer
	b *Backend
}

func (s *operationsServer) GetOperation(_ context.Context, req *longrunningpb.GetOperationRequest) (*longrunningpb.Operation, error) {
	return s.b.ops.get(req.Name)
}

func (s *operationsServer) ListOperations(_ context.Context, req *longrunningpb.ListOperationsRequest) (*longrunningpb.ListOperationsResponse, error) {
	parent := strings.TrimSuffix(req.Name, "/operations")
	return &longrunningpb.ListOperationsResponse{Operations: s.b.ops.list(parent)}, nil
}
