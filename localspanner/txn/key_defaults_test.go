package txn

import "testing"

func TestUUIDDefault(t *testing.T) {
	for expr, want := range map[string]bool{
		"NEW_UUID()": true, "new_uuid ( )": true, "(GENERATE_UUID())": true,
		"NEW_UUID": false, "1": false, "CONCAT(NEW_UUID(), 'x')": false, "": false,
	} {
		if got := uuidDefault(expr); got != want {
			t.Errorf("uuidDefault(%q) = %v, want %v", expr, got, want)
		}
	}
}
