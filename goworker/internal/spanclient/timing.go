package spanclient

import (
	"context"
	"errors"
	"io"
	"regexp"
	"strconv"
	"sync"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/spanload/spanload/goworker/internal/metrics"
)

// ServerTimingHeader carries the server's time per RPC in Spanner's form "gfet4t7; dur=1"
// (whole milliseconds); FineTimingHeader is the local server's own "dur=0.412" (fractional
// milliseconds), preferred when present.
const (
	ServerTimingHeader = "server-timing"
	FineTimingHeader   = "x-spanload-server-timing"
)

var durRE = regexp.MustCompile(`dur=([0-9]+(?:\.[0-9]+)?)`)

// ParseMs is the first dur= of a server-timing value in milliseconds (integer or fractional).
func ParseMs(value string) (float64, bool) {
	m := durRE.FindStringSubmatch(value)
	if m == nil {
		return 0, false
	}
	ms, err := strconv.ParseFloat(m[1], 64)
	return ms, err == nil
}

// Timing sums the server time of every RPC made under one operation's context, and keeps the
// code of its last failed RPC.
type Timing struct {
	mu      sync.Mutex
	total   float64
	seen    bool
	lastErr codes.Code
	begun   time.Time
	// for the breakdown: session wait (emulated pool), statements run, commits
	pooled      bool
	sessionWait time.Duration
	statements  []string
	commits     int64
}

// background is the last failure of an RPC made outside any operation (the client creating its
// multiplexed session): an operation waiting for that session failed because of it.
var background struct {
	mu   sync.Mutex
	code codes.Code
	at   time.Time
}

type timingKey struct{}

// WithTiming is a context whose RPCs add their server time to the returned Timing.
func WithTiming(ctx context.Context) (context.Context, *Timing) {
	t := &Timing{begun: time.Now()}
	return context.WithValue(ctx, timingKey{}, t), t
}

// Ms is the total server time, false if no RPC said.
func (t *Timing) Ms() (float64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total, t.seen
}

// Parts is what the operation's RPCs said and how long it waited for a session, for the breakdown.
func (t *Timing) Parts() metrics.OpParts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return metrics.OpParts{
		ServerMs: t.total, ServerSeen: t.seen, SessionWait: t.sessionWait.Seconds(), Pooled: t.pooled,
		Statements: t.statements, Commits: t.commits,
	}
}

func (t *Timing) noteSessionWait(d time.Duration) {
	t.mu.Lock()
	t.pooled = true
	t.sessionWait += d
	t.mu.Unlock()
}

const commitMethod = "/google.spanner.v1.Spanner/Commit"

// noteRequest keeps an operation's SQL texts and counts its commits.
func noteRequest(ctx context.Context, method string, req any) {
	t, _ := ctx.Value(timingKey{}).(*Timing)
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if method == commitMethod {
		t.commits++
	}
	switch r := req.(type) {
	case *spannerpb.ExecuteSqlRequest:
		t.statements = append(t.statements, r.GetSql())
	case *spannerpb.ExecuteBatchDmlRequest:
		for _, st := range r.GetStatements() {
			t.statements = append(t.statements, st.GetSql())
		}
	}
}

// LastFailure is the code of the operation's last failed RPC, else of a background RPC (session
// creation) that failed while it ran; codes.OK: none failed.
func (t *Timing) LastFailure() codes.Code {
	t.mu.Lock()
	code, begun := t.lastErr, t.begun
	t.mu.Unlock()
	if code != codes.OK {
		return code
	}
	background.mu.Lock()
	defer background.mu.Unlock()
	if background.code != codes.OK && !background.at.Before(begun) {
		return background.code
	}
	return codes.OK
}

func noteErr(ctx context.Context, err error) {
	if err == nil || errors.Is(err, io.EOF) {
		return
	}
	if t, _ := ctx.Value(timingKey{}).(*Timing); t != nil {
		t.mu.Lock()
		t.lastErr = status.Code(err)
		t.mu.Unlock()
		return
	}
	background.mu.Lock()
	background.code, background.at = status.Code(err), time.Now()
	background.mu.Unlock()
}

// HeaderMs is the server time of one RPC's header metadata: the fine header if present, else
// server-timing.
func HeaderMs(md metadata.MD) (float64, bool) {
	for _, h := range []string{FineTimingHeader, ServerTimingHeader} {
		for _, v := range md.Get(h) {
			if ms, ok := ParseMs(v); ok {
				return ms, true
			}
		}
	}
	return 0, false
}

func note(ctx context.Context, md metadata.MD) {
	t, _ := ctx.Value(timingKey{}).(*Timing)
	if t == nil {
		return
	}
	if ms, ok := HeaderMs(md); ok {
		t.mu.Lock()
		t.total += ms
		t.seen = true
		t.mu.Unlock()
	}
}

func unaryTiming(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
	invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if ctx.Value(timingKey{}) == nil {
		err := invoker(ctx, method, req, reply, cc, opts...)
		noteErr(ctx, err)
		return err
	}
	noteRequest(ctx, method, req)
	var md metadata.MD
	err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Header(&md))...)
	note(ctx, md)
	noteErr(ctx, err)
	return err
}

func streamTiming(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
	streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cs, err := streamer(ctx, desc, cc, method, opts...)
	noteErr(ctx, err)
	if err != nil || ctx.Value(timingKey{}) == nil {
		return cs, err
	}
	return &timedStream{ClientStream: cs, ctx: ctx, method: method}, nil
}

// timedStream reads the header once the first response (or the end) has arrived, so it never
// waits for what the caller was not already waiting for.
type timedStream struct {
	grpc.ClientStream
	ctx    context.Context
	method string
	noted  bool
	sent   bool
}

// SendMsg sees the streaming call's request (ExecuteStreamingSql, StreamingRead).
func (s *timedStream) SendMsg(m any) error {
	if !s.sent {
		s.sent = true
		noteRequest(s.ctx, s.method, m)
	}
	return s.ClientStream.SendMsg(m)
}

func (s *timedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if !s.noted {
		s.noted = true
		if md, herr := s.ClientStream.Header(); herr == nil {
			note(s.ctx, md)
		}
	}
	noteErr(s.ctx, err)
	return err
}
