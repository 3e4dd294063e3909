package spanclient

import (
	"context"
	"sync"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
)

// Request and transaction tags: every Spanner request of an operation carries its tag,
// spanload-<run>-<operation>, as backend/spanload/spanner/request_tags.py does for the Python
// worker. The tags come whole in the start message (Start.RunTag, Start.Tags, built by
// backend/spanload/model/tags.py): this runtime never builds one. An operation names itself with
// Tagged on the context it begins with; the interceptors fill the RequestOptions the client left
// empty, where google.spanner.v1.RequestOptions says each tag goes: request_tag on queries and
// reads, transaction_tag on every request of a read-write transaction and on BatchWrite.

var runTags struct {
	mu   sync.RWMutex
	run  string
	byOp map[string]string
}

// ConfigureTags sets the run's own tag and each operation's (from the start message).
func ConfigureTags(run string, byOp map[string]string) {
	runTags.mu.Lock()
	runTags.run, runTags.byOp = run, byOp
	runTags.mu.Unlock()
}

type tagKey struct{}

type opTag struct{ op, tag string }

// Tagged is ctx for the RPCs of operation op: they carry op's tag (the run's own tag for an
// operation the start message did not name).
func Tagged(ctx context.Context, op string) context.Context {
	runTags.mu.RLock()
	tag, ok := runTags.byOp[op]
	if !ok {
		tag = runTags.run
	}
	runTags.mu.RUnlock()
	return context.WithValue(ctx, tagKey{}, opTag{op: op, tag: tag})
}

// OperationOf is the name of ctx's operation ("" outside one).
func OperationOf(ctx context.Context) string {
	v, _ := ctx.Value(tagKey{}).(opTag)
	return v.op
}

// TagOf is the tag of ctx's operation, else the run's own tag ("" outside a run).
func TagOf(ctx context.Context) string {
	if v, ok := ctx.Value(tagKey{}).(opTag); ok && v.tag != "" {
		return v.tag
	}
	runTags.mu.RLock()
	defer runTags.mu.RUnlock()
	return runTags.run
}

func readWrite(sel *spannerpb.TransactionSelector) bool {
	if sel == nil {
		return false
	}
	if b := sel.GetBegin(); b != nil {
		return b.GetReadWrite() != nil
	}
	return len(sel.GetId()) > 0
}

func options(o **spannerpb.RequestOptions) *spannerpb.RequestOptions {
	if *o == nil {
		*o = &spannerpb.RequestOptions{}
	}
	return *o
}

func setRequest(o **spannerpb.RequestOptions, tag string, rw bool) {
	opts := options(o)
	if opts.RequestTag == "" {
		opts.RequestTag = tag
	}
	if rw && opts.TransactionTag == "" {
		opts.TransactionTag = tag
	}
}

func setTransaction(o **spannerpb.RequestOptions, tag string) {
	if opts := options(o); opts.TransactionTag == "" {
		opts.TransactionTag = tag
	}
}

// TagRequest fills req's empty tags with tag where Spanner reads them.
func TagRequest(req any, tag string) {
	if tag == "" {
		return
	}
	switch r := req.(type) {
	case *spannerpb.ExecuteSqlRequest:
		setRequest(&r.RequestOptions, tag, readWrite(r.Transaction))
	case *spannerpb.ReadRequest:
		setRequest(&r.RequestOptions, tag, readWrite(r.Transaction))
	case *spannerpb.ExecuteBatchDmlRequest:
		setRequest(&r.RequestOptions, tag, readWrite(r.Transaction))
	case *spannerpb.BeginTransactionRequest:
		if r.GetOptions().GetReadWrite() != nil {
			setTransaction(&r.RequestOptions, tag)
		}
	case *spannerpb.CommitRequest:
		setTransaction(&r.RequestOptions, tag)
	case *spannerpb.BatchWriteRequest:
		setTransaction(&r.RequestOptions, tag)
	}
}

func unaryTags(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	TagRequest(req, TagOf(ctx))
	return invoker(ctx, method, req, reply, cc, opts...)
}

type taggedStream struct {
	grpc.ClientStream
	tag string
}

func (s taggedStream) SendMsg(m any) error {
	TagRequest(m, s.tag)
	return s.ClientStream.SendMsg(m)
}

func streamTags(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		return s, err
	}
	return taggedStream{ClientStream: s, tag: TagOf(ctx)}, nil
}
