package exec

// The PostgreSQL dialect's change stream read function,
// spanner.read_json_<stream>(start_timestamp, end_timestamp, partition_token,
// heartbeat_milliseconds, read_options): the same call and the same records as
// READ_<stream>, each record sent as one JSONB value instead of a ChangeRecord struct.

import (
	"encoding/json"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

const pgReadPrefix = "read_json_"

// parsePGChangeStreamCall recognises `SELECT * FROM spanner.read_json_<stream>(...)`.
func parsePGChangeStreamCall(cat *schema.Catalog, st Statement) (*csCall, bool, error) {
	if !strings.Contains(strings.ToLower(st.SQL), pgReadPrefix) || schema.CheckPGText(st.SQL) != nil {
		return nil, false, nil
	}
	res, err := pg.Parse(st.SQL)
	if err != nil || len(res.Stmts) != 1 {
		return nil, false, nil
	}
	sel := res.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.FromClause) != 1 {
		return nil, false, nil
	}
	rf := sel.FromClause[0].GetRangeFunction()
	if rf == nil || len(rf.Functions) != 1 || len(rf.Functions[0].GetList().GetItems()) == 0 {
		return nil, false, nil
	}
	fc := rf.Functions[0].GetList().GetItems()[0].GetFuncCall()
	if fc == nil || len(fc.Funcname) != 2 || fc.Funcname[0].GetString_().GetSval() != "spanner" {
		return nil, false, nil
	}
	fn := fc.Funcname[1].GetString_().GetSval()
	if !strings.HasPrefix(fn, pgReadPrefix) {
		return nil, false, nil
	}
	cs, found := cat.ChangeStream(fn[len(pgReadPrefix):])
	if !found {
		return nil, false, nil
	}
	if len(fc.Args) != len(csArgNames) {
		return nil, true, spanerr.InvalidArgument("spanner.%s takes the arguments %s", fn, strings.Join(csArgNames, ", "))
	}
	vals := map[string]any{}
	for i, a := range fc.Args {
		v, err := pgCSArg(a, st)
		if err != nil {
			return nil, true, spanerr.InvalidArgument("Argument %s of spanner.%s: %v", csArgNames[i], fn, err)
		}
		vals[csArgNames[i]] = v
	}
	call := &csCall{stream: cs, pgJSON: true}
	if err := call.fill(vals); err != nil {
		return nil, true, err
	}
	return call, true, nil
}

// pgCSArg evaluates a read function argument: a constant or a parameter ($n), either
// maybe cast (the cast is the argument's type, which fill checks).
func pgCSArg(n *pg.Node, st Statement) (any, error) {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.GetArg()
	}
	switch {
	case n.GetAConst() != nil:
		c := n.GetAConst()
		switch {
		case c.GetIsnull():
			return nil, nil
		case c.GetSval() != nil:
			return c.GetSval().GetSval(), nil
		case c.GetIval() != nil:
			return int64(c.GetIval().GetIval()), nil
		}
	case n.GetParamRef() != nil:
		return csParam("p"+strconv.Itoa(int(n.GetParamRef().GetNumber())), st)
	}
	return nil, spanerr.InvalidArgument("must be a constant or a query parameter")
}

// pgRecordField is the one column of spanner.read_json_<stream>: a JSONB per record.
func pgRecordField(stream string) *spannerpb.StructType_Field {
	return field(pgReadPrefix+strings.ToLower(stream), &spannerpb.Type{Code: spannerpb.TypeCode_JSON, TypeAnnotation: spannerpb.TypeAnnotationCode_PG_JSONB})
}

// pgRecordJSON encodes one ChangeRecord (a struct of three arrays, one of them holding
// the record) as the JSON object Spanner sends a PostgreSQL database: the array's name
// keys the record, an object whose fields are the struct's, JSON columns nested as
// JSON and INT64 values as numbers.
func pgRecordJSON(rec *structpb.Value) (*structpb.Value, error) {
	kinds := changeRecordType().ArrayElementType.StructType.Fields
	obj := map[string]any{}
	for i, kind := range kinds {
		items := rec.GetListValue().GetValues()[i].GetListValue().GetValues()
		if len(items) > 0 {
			v, err := pgJSONValue(kind.Type.ArrayElementType, items[0])
			if err != nil {
				return nil, err
			}
			obj[kind.Name] = v
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return structpb.NewStringValue(string(b)), nil
}

func pgJSONValue(t *spannerpb.Type, v *structpb.Value) (any, error) {
	switch t.GetCode() {
	case spannerpb.TypeCode_STRUCT:
		obj := map[string]any{}
		for i, f := range t.StructType.Fields {
			x, err := pgJSONValue(f.Type, v.GetListValue().GetValues()[i])
			if err != nil {
				return nil, err
			}
			obj[f.Name] = x
		}
		return obj, nil
	case spannerpb.TypeCode_ARRAY:
		out := []any{}
		for _, e := range v.GetListValue().GetValues() {
			x, err := pgJSONValue(t.ArrayElementType, e)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case spannerpb.TypeCode_JSON:
		var x any
		err := json.Unmarshal([]byte(v.GetStringValue()), &x)
		return x, err
	case spannerpb.TypeCode_INT64:
		return strconv.ParseInt(v.GetStringValue(), 10, 64)
	}
	return v.AsInterface(), nil
}
