package value

import "testing"

func TestParseUUID(t *testing.T) {
	const canon = "9d3f8a1e-6c2b-4f5e-8a7d-1b2c3d4e5f60"
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{canon, true},
		{"9D3F8A1E-6C2B-4F5E-8A7D-1B2C3D4E5F60", true},
		{"9d3f8a1e6c2b4f5e8a7d1b2c3d4e5f60", true},
		{"9-d3f8a1e6c2b4f5e8a7d1b2c3d4e5f6-0", true},
		{"-9d3f8a1e6c2b4f5e8a7d1b2c3d4e5f60", false},
		{"9d3f8a1e6c2b4f5e8a7d1b2c3d4e5f60-", false},
		{"9d3f8a1e--6c2b4f5e8a7d1b2c3d4e5f60", false},
		{"9d3f8a1e-6c2b-4f5e-8a7d-1b2c3d4e5f6", false},
		{"9d3f8a1e-6c2b-4f5e-8a7d-1b2c3d4e5f6g", false},
		{"", false},
	} {
		got, err := ParseUUID(tc.in)
		if tc.ok && (err != nil || got != canon) {
			t.Errorf("ParseUUID(%q) = %q, %v; want %q", tc.in, got, err, canon)
		}
		if !tc.ok && err == nil {
			t.Errorf("ParseUUID(%q) = %q, want an error", tc.in, got)
		}
	}
}
