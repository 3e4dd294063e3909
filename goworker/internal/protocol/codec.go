package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// ErrUnknownType is returned (wrapped) for a well-formed message of a type this worker does not
// know; the caller logs it and carries on, as the Python side does.
var ErrUnknownType = fmt.Errorf("unknown message type")

type envelope struct {
	V    *int   `json:"v"`
	Type string `json:"type"`
}

// Decode parses one supervisor line into *Start, *Preload, *Begin, *Patch, *Pause, *Resume, *StopWriters
// or *Stop.
func Decode(line []byte) (any, error) {
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if env.V == nil || *env.V != Version {
		v := "missing"
		if env.V != nil {
			v = fmt.Sprint(*env.V)
		}
		return nil, fmt.Errorf("protocol version %s is not %d", v, Version)
	}
	var msg any
	switch env.Type {
	case TypeStart:
		msg = &Start{}
	case TypePreload:
		msg = &Preload{}
	case TypeBegin:
		msg = &Begin{}
	case TypePatch:
		msg = &Patch{}
	case TypePause:
		return &Pause{}, nil
	case TypeResume:
		return &Resume{}, nil
	case TypeStopWriters:
		return &StopWriters{}, nil
	case TypeStop:
		return &Stop{}, nil
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownType, env.Type)
	}
	if err := json.Unmarshal(line, msg); err != nil {
		return nil, fmt.Errorf("bad %q message: %w", env.Type, err)
	}
	return msg, nil
}

// Encode is one NDJSON line of a worker message, with its "type" and "v".
func Encode(msg any) ([]byte, error) {
	var kind string
	switch m := msg.(type) {
	case *Hello:
		kind = TypeHello
	case *Ready:
		kind = TypeReady
	case *PreloadProgress:
		kind = TypePreloadProgress
	case *Report:
		kind = TypeReport
		fillReport(m)
	case *WritersStopped:
		kind = TypeWritersStopped
		if m.Ledger == nil {
			m.Ledger = [][3]int64{}
		}
		if m.UncertainKeys == nil {
			m.UncertainKeys = []int64{}
		}
	case *WatcherLedger:
		kind = TypeWatcherLedger
		if m.Received == nil {
			m.Received = [][3]int64{}
		}
	case *WatchSwitched:
		kind = TypeWatchSwitched
	case *Stopped:
		kind = TypeStopped
	case *Error:
		kind = TypeError
	default:
		return nil, fmt.Errorf("not a worker message: %T", msg)
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", kind, err)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `{"type":%q,"v":%d`, kind, Version)
	if len(body) > 2 {
		buf.WriteByte(',')
		buf.Write(body[1 : len(body)-1])
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// fillReport turns nil maps into empty ones: the supervisor wants objects, not null.
func fillReport(r *Report) {
	if r.Counters == nil {
		r.Counters = map[string]int64{}
	}
	if r.Gauges == nil {
		r.Gauges = map[string]float64{}
	}
	if r.ErrorsByCode == nil {
		r.ErrorsByCode = map[string]int64{}
	}
	if r.Hdr == nil {
		r.Hdr = map[string]string{}
	}
}

// Channel writes worker messages to one stream (stdout) from any goroutine.
type Channel struct {
	mu  sync.Mutex
	out io.Writer
}

func NewChannel(out io.Writer) *Channel { return &Channel{out: out} }

// Send writes one message line; a write error means the supervisor is gone.
func (c *Channel) Send(msg any) error {
	line, err := Encode(msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.out.Write(line)
	return err
}
