package sqlfn

import (
	"fmt"
	"reflect"

	"github.com/mattn/go-sqlite3"
)

// GoogleSQL's SAFE. prefix: "If you begin a scalar function with the SAFE. prefix, it
// will return NULL instead of an error. The SAFE. prefix only prevents errors from the
// prefixed function itself". Every function of udfs that can fail (it returns
// (any, error)) has a twin, SafeName(name), that answers NULL where it would fail;
// its arguments are still evaluated, and fail, outside it.

// SafeName is the name of the SAFE. twin of the SQL function name.
func SafeName(name string) string { return "sp_safe__" + name }

// HasSafe reports whether the SQL function name has a SAFE. twin.
func HasSafe(name string) bool {
	_, ok := safeUDFs[name]
	return ok
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// safeUDFs maps a function of udfs that can fail to its NULL-instead-of-error twin.
var safeUDFs = func() map[string]any {
	m := map[string]any{}
	for _, f := range udfs {
		fn := reflect.ValueOf(f.impl)
		t := fn.Type()
		if t.NumOut() != 2 || t.Out(1) != errorType || t.Out(0).Kind() != reflect.Interface {
			continue
		}
		m[f.name] = reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
			var out []reflect.Value
			if t.IsVariadic() {
				out = fn.CallSlice(args)
			} else {
				out = fn.Call(args)
			}
			if !out[1].IsNil() {
				return []reflect.Value{reflect.Zero(t.Out(0)), reflect.Zero(errorType)}
			}
			return out
		}).Interface()
	}
	return m
}()

func registerSafe(conn *sqlite3.SQLiteConn) error {
	for _, f := range udfs {
		impl, ok := safeUDFs[f.name]
		if !ok {
			continue
		}
		if err := conn.RegisterFunc(SafeName(f.name), impl, f.pure); err != nil {
			return fmt.Errorf("register SQL function %s: %w", SafeName(f.name), err)
		}
	}
	return nil
}
