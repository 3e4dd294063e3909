package sqlfn

import "testing"

func TestFingerprint64(t *testing.T) {
	lorem := "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id est laborum."
	tests := []struct {
		in   string
		want uint64
	}{
		{"", 0x9ae16a3b2f90404f},
		{"a", 0xb3454265b6df75e3},
		{"abc", 0x24a5b3a074e7f369},
		{"abcd", 0x1a5502de4a1f8101},
		{"abcdefg", 0x3c40c92b1ccb7355},
		{"abcdefgh", 0xfee9d22990c82909},
		{"0123456789'01234", 0x4283d4ef43627f64},
		{"0123456789=012345", 0x46a7416ed4861e3b},
		{"C is as portable as Stonehedge!!", 0xb944f8a16261e414},
		{"Discard medicine more than two years old.", 0xe8f89ab6df9bdd25},
		{"The days of the digital watch are numbered.  -Tom Stoppard", 0x2a578b80bb82147c},
		{"For every action there is an equal and opposite government program.", 0x55182f8859eca4ce},
		{"Give me a rock, paper and scissors and I will move the world.  CCFestoon", 0xa2b8bf3032021993},
		{lorem, 0xc3f02c4ffd5d71e6},
	}
	for _, tt := range tests {
		if got := Fingerprint64([]byte(tt.in)); got != tt.want {
			t.Errorf("Fingerprint64(%q) (len %d) = %#x, want %#x", tt.in, len(tt.in), got, tt.want)
		}
	}
	// Spanner documents FARM_FINGERPRINT('') as this signed value.
	if got := int64(Fingerprint64(nil)); got != -7286425919675154353 {
		t.Errorf("signed FARM_FINGERPRINT('') = %d", got)
	}
}
