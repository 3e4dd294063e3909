package frontend

import (
	"context"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// serverTiming is the header Cloud Spanner's front end sets with its processing
// time, in Spanner's own form "gfet4t7; dur=<whole milliseconds>": the Go client
// parses dur as an integer and records nothing for a fraction (issue 17).
// FineTimingHeader carries the same time in microsecond resolution
// ("dur=0.412", milliseconds), which Spanload's own readers prefer when present.
func serverTiming(d time.Duration) metadata.MD {
	return metadata.Pairs(
		"server-timing", "gfet4t7; dur="+strconv.FormatInt(d.Milliseconds(), 10),
		FineTimingHeader, "dur="+strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64),
	)
}

// FineTimingHeader is the local server's own header with the server time in
// fractional milliseconds.
const FineTimingHeader = "x-spanload-server-timing"

func timingUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	resp, err := handler(ctx, req)
	_ = grpc.SetHeader(ctx, serverTiming(time.Since(start)))
	return resp, err
}

// timedStream sets the server-timing header (time until the first response)
// just before the first message goes out.
type timedStream struct {
	grpc.ServerStream
	start time.Time
	once  sync.Once
}

func (s *timedStream) setHeader() {
	s.once.Do(func() { _ = s.ServerStream.SetHeader(serverTiming(time.Since(s.start))) })
}

func (s *timedStream) SendMsg(m any) error {
	s.setHeader()
	return s.ServerStream.SendMsg(m)
}

func timingStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ts := &timedStream{ServerStream: ss, start: time.Now()}
	err := handler(srv, ts)
	ts.setHeader()
	return err
}
