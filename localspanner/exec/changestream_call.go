package exec

// The change stream read function READ_<stream>(start_timestamp, end_timestamp,
// partition_token, heartbeat_milliseconds[, read_options]): recognising the call,
// checking its arguments, and the type of its one column, ChangeRecord.

import (
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/ast"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// Change stream read limits, as Spanner documents them.
const (
	minHeartbeatMs      = 100
	maxHeartbeatMs      = 300_000
	maxStartInTheFuture = 10 * time.Minute
)

// csCall is one call of a change stream's read function.
type csCall struct {
	stream    *schema.ChangeStream
	start     time.Time
	end       *time.Time // nil: no end
	token     string     // "": the initial query
	heartbeat time.Duration
	pgJSON    bool // spanner.read_json_<stream>: records as JSONB (changestream_pg.go)
}

var csArgNames = []string{"start_timestamp", "end_timestamp", "partition_token", "heartbeat_milliseconds", "read_options"}

// parseChangeStreamCall recognises `SELECT ChangeRecord FROM READ_<stream>(...)` (or
// SELECT *). ok is false for any other statement.
func parseChangeStreamCall(cat *schema.Catalog, st Statement) (call *csCall, ok bool, err error) {
	if len(cat.ChangeStreams) == 0 || !strings.Contains(strings.ToUpper(st.SQL), "READ_") {
		return nil, false, nil
	}
	if cat.Dialect() == schema.PostgreSQL {
		return parsePGChangeStreamCall(cat, st)
	}
	defer func() {
		if r := recover(); r != nil {
			call, ok, err = nil, false, nil
		}
	}()
	stmt, perr := memefish.ParseQuery("", st.SQL)
	if perr != nil {
		return nil, false, nil
	}
	sel, isSel := stmt.Query.(*ast.Select)
	if !isSel || sel.From == nil {
		return nil, false, nil
	}
	tvf, isTVF := sel.From.Source.(*ast.TVFCallExpr)
	if !isTVF || len(tvf.Name.Idents) != 1 {
		return nil, false, nil
	}
	fn := tvf.Name.Idents[0].Name
	if len(fn) <= 5 || !strings.EqualFold(fn[:5], "READ_") {
		return nil, false, nil
	}
	cs, found := cat.ChangeStream(fn[5:])
	if !found {
		return nil, false, nil
	}
	args := map[string]ast.Expr{}
	for i, a := range tvf.Args {
		ea, isExpr := a.(*ast.ExprArg)
		if !isExpr || i >= len(csArgNames) {
			return nil, true, spanerr.InvalidArgument("%s takes the arguments %s", fn, strings.Join(csArgNames[:4], ", "))
		}
		args[csArgNames[i]] = ea.Expr
	}
	for _, na := range tvf.NamedArgs {
		args[strings.ToLower(na.Name.Name)] = na.Value
	}
	call = &csCall{stream: cs}
	vals := map[string]any{}
	for _, name := range csArgNames {
		e, given := args[name]
		if !given {
			if name == "read_options" {
				continue
			}
			return nil, true, spanerr.InvalidArgument("%s needs the argument %s", fn, name)
		}
		v, err := csArg(e, st)
		if err != nil {
			return nil, true, spanerr.InvalidArgument("Argument %s of %s: %v", name, fn, err)
		}
		vals[name] = v
	}
	if err := call.fill(vals); err != nil {
		return nil, true, err
	}
	return call, true, nil
}

// csArg evaluates a read function argument: a literal or a query parameter.
func csArg(e ast.Expr, st Statement) (any, error) {
	switch x := e.(type) {
	case *ast.NullLiteral:
		return nil, nil
	case *ast.StringLiteral:
		return x.Value, nil
	case *ast.TimestampLiteral:
		return x.Value.Value, nil
	case *ast.IntLiteral:
		return strconv.ParseInt(x.Value, x.Base, 64)
	case *ast.Param:
		return csParam(x.Name, st)
	}
	return nil, spanerr.InvalidArgument("must be a literal or a query parameter, not %s", e.SQL())
}

// csParam is the value of the read function argument bound to parameter name.
func csParam(name string, st Statement) (any, error) {
	v, ok := st.Params[name]
	if !ok {
		return nil, spanerr.InvalidArgument("No parameter found for binding: %s", name)
	}
	switch k := v.Kind.(type) {
	case *structpb.Value_NullValue:
		return nil, nil
	case *structpb.Value_StringValue:
		if st.Types[name].GetCode() == spannerpb.TypeCode_INT64 {
			return strconv.ParseInt(k.StringValue, 10, 64)
		}
		return k.StringValue, nil
	case *structpb.Value_NumberValue:
		return int64(k.NumberValue), nil
	}
	return nil, spanerr.InvalidArgument("parameter %s has a value of the wrong type", name)
}

func (c *csCall) fill(vals map[string]any) error {
	start, ok := vals["start_timestamp"].(string)
	if !ok {
		return spanerr.InvalidArgument("start_timestamp must not be null.")
	}
	var err error
	if c.start, err = time.Parse(time.RFC3339Nano, start); err != nil {
		return spanerr.InvalidArgument("Invalid start_timestamp: %s", start)
	}
	if end, ok := vals["end_timestamp"].(string); ok {
		t, err := time.Parse(time.RFC3339Nano, end)
		if err != nil {
			return spanerr.InvalidArgument("Invalid end_timestamp: %s", end)
		}
		c.end = &t
		if c.start.After(t) {
			return spanerr.InvalidArgument("If end_timestamp is specified, start_timestamp must be <= end_timestamp. Received start_timestamp: %s, end_timestamp: %s.", fmtTS(c.start), fmtTS(t))
		}
	}
	c.token, _ = vals["partition_token"].(string)
	hb, ok := vals["heartbeat_milliseconds"].(int64)
	if !ok {
		return spanerr.InvalidArgument("heartbeat_milliseconds must not be null.")
	}
	if hb < minHeartbeatMs || hb > maxHeartbeatMs {
		return spanerr.OutOfRange("heartbeat_milliseconds must be within min %d and max %d. Received heartbeat_milliseconds: %d.", minHeartbeatMs, maxHeartbeatMs, hb)
	}
	c.heartbeat = time.Duration(hb) * time.Millisecond
	if vals["read_options"] != nil {
		return spanerr.Unimplemented("read_options must be null.")
	}
	return nil
}

// checkStart refuses a start before the stream's retention (or its creation) and
// one too far in the future.
func (c *csCall) checkStart(now time.Time, created int64) error {
	earliest := now.Add(-c.stream.Retention())
	if cr := time.UnixMicro(created); cr.After(earliest) {
		earliest = cr
	}
	if c.start.Before(earliest) {
		return spanerr.OutOfRange("Specified start_timestamp is too far in the past. Please specify a start_timestamp within the earliest read timestamp: %s. Received start_timestamp: %s.", fmtTS(earliest), fmtTS(c.start))
	}
	if latest := now.Add(maxStartInTheFuture); c.start.After(latest) {
		return spanerr.OutOfRange("Specified start_timestamp is too far in the future. Please specify a start_timestamp within the earliest read timestamp: %s, and the current maximum start timestamp: %s. Received start_timestamp: %s.", fmtTS(earliest), fmtTS(latest), fmtTS(c.start))
	}
	return nil
}

func fmtTS(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func typ(code spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: code} }

func arrayOf(fields ...*spannerpb.StructType_Field) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: &spannerpb.Type{
		Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: fields}}}
}

func field(name string, t *spannerpb.Type) *spannerpb.StructType_Field {
	return &spannerpb.StructType_Field{Name: name, Type: t}
}

// changeRecordType is the type of the ChangeRecord column, as Spanner documents it.
func changeRecordType() *spannerpb.Type {
	str, ts, b, i64, js := typ(spannerpb.TypeCode_STRING), typ(spannerpb.TypeCode_TIMESTAMP), typ(spannerpb.TypeCode_BOOL), typ(spannerpb.TypeCode_INT64), typ(spannerpb.TypeCode_JSON)
	return arrayOf(
		field("data_change_record", arrayOf(
			field("commit_timestamp", ts),
			field("record_sequence", str),
			field("server_transaction_id", str),
			field("is_last_record_in_transaction_in_partition", b),
			field("table_name", str),
			field("column_types", arrayOf(field("name", str), field("type", js), field("is_primary_key", b), field("ordinal_position", i64))),
			field("mods", arrayOf(field("keys", js), field("new_values", js), field("old_values", js))),
			field("mod_type", str),
			field("value_capture_type", str),
			field("number_of_records_in_transaction", i64),
			field("number_of_partitions_in_transaction", i64),
			field("transaction_tag", str),
			field("is_system_transaction", b),
		)),
		field("heartbeat_record", arrayOf(field("timestamp", ts))),
		field("child_partitions_record", arrayOf(
			field("start_timestamp", ts),
			field("record_sequence", str),
			field("child_partitions", arrayOf(field("token", str), field("parent_partition_tokens", &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: str}))),
		)),
	)
}
