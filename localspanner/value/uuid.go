package value

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// UUID values (GoogleSQL "UUID type"): 128 bits written as 32 hexadecimal digits,
// canonically lower case in five hyphen-separated groups 8-4-4-4-12. Input may use
// either case and hyphens anywhere between digits, one at a time, never first or
// last. The storage encoding is the canonical text, which orders as the bytes do.

// ParseUUID returns the canonical text of a UUID written in s.
func ParseUUID(s string) (string, error) {
	b, ok := uuidBytes(s)
	if !ok {
		return "", invalid("Invalid UUID string: %q", s)
	}
	return FormatUUID(b), nil
}

func uuidBytes(s string) ([]byte, bool) {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return nil, false
	}
	digits := strings.ReplaceAll(s, "-", "")
	if len(digits) != 32 {
		return nil, false
	}
	b, err := hex.DecodeString(digits)
	return b, err == nil
}

// FormatUUID writes 16 bytes as a canonical UUID.
func FormatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// UUIDToBytes returns the 16 bytes of a canonical (stored) UUID.
func UUIDToBytes(canonical string) ([]byte, bool) {
	return uuidBytes(canonical)
}

// NewUUID returns a random version 4 UUID (RFC 4122 section 4.4) in canonical form:
// what NEW_UUID() and GENERATE_UUID() return.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return FormatUUID(b[:])
}
