package sqlfn

import "testing"

// Every function that can fail has a SAFE. twin that answers NULL instead.
func TestSafeTwins(t *testing.T) {
	for _, name := range []string{"sp_math", "sp_idiv", "sp_substr", "sp_cast", "sp_ts_add"} {
		if !HasSafe(name) {
			t.Errorf("%s has no SAFE. twin", name)
		}
	}
	safeMath := safeUDFs["sp_math"].(func(string, ...any) (any, error))
	if v, err := safeMath("SQRT", float64(-1)); v != nil || err != nil {
		t.Errorf("SAFE.SQRT(-1) = %v, %v; want NULL", v, err)
	}
	if v, err := safeMath("SQRT", float64(4)); v != float64(2) || err != nil {
		t.Errorf("SAFE.SQRT(4) = %v, %v; want 2", v, err)
	}
}
