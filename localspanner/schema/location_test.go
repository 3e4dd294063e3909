package schema

import (
	"strconv"
	"strings"
	"testing"
)

// Expected outputs are ZetaSQL's own (zetasql/public/error_helpers_test.cc,
// GetErrorStringWithCaret), the format Spanner's analyzer errors carry.
func TestCaretLineAsZetaSQL(t *testing.T) {
	caret := func(s string, column, width int) string {
		line, col := caretLine(s, column-1, width)
		return line + "\n" + strings.Repeat(" ", col) + "^"
	}
	cases := []struct {
		s             string
		column, width int
		want          string
	}{
		{"abc", 1, 80, "abc\n^"},
		{"def", 4, 80, "def\n   ^"}, // one past the end of the line
		{"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789", 35, 30,
			"...901234567890123456789012...\n                  ^"},
		{"01234567890123456789012345\xc3\xb067890", 1, 30, "01234567890123456789012345...\n^"},
		{"01234567890123456789012345\xc3\xb067890", 1, 31, "01234567890123456789012345\xc3\xb0...\n^"},
	}
	for _, tc := range cases {
		if got := caret(tc.s, tc.column, tc.width); got != tc.want {
			t.Errorf("caret(%q, %d, %d) =\n%s\nwant\n%s", tc.s, tc.column, tc.width, got, tc.want)
		}
	}

	// The long line of words that start with their own column ("45_45678" at 45).
	line := ""
	for size := 5; len(line) < 160; size += 3 {
		block := strconv.Itoa(len(line)+1) + "_"
		block += "12345678901234567890"[len(block):]
		line += block[:min(size-1, len(block))] + " " // std::string::substr stops at the end
		size += 3
	}
	var got []string
	for i := 1; i < len(line)-1; i += 7 {
		got = append(got, caret(line, i, 56))
	}
	got = append(got, caret(line, len(line)-1, 56), caret(line, len(line), 56))
	want := []string{
		"1_34 6_34567890 17_4567890123456 34_45678901234567890...\n^",
		"1_34 6_34567890 17_4567890123456 34_45678901234567890...\n       ^",
		"1_34 6_34567890 17_4567890123456 34_45678901234567890...\n              ^",
		"1_34 6_34567890 17_4567890123456 34_45678901234567890...\n                     ^",
		"1_34 6_34567890 17_4567890123456 34_45678901234567890...\n                            ^",
		"1_34 6_34567890 17_4567890123456 34_45678901234567890...\n                                   ^",
		"...17_4567890123456 34_45678901234567890 55_456789012...\n                             ^",
		"...17_4567890123456 34_45678901234567890 55_456789012...\n                                    ^",
		"...34_45678901234567890 55_45678901234567890 76_45678...\n                          ^",
		"...34_45678901234567890 55_45678901234567890 76_45678...\n                                 ^",
		"...01234567890 55_45678901234567890 76_45678901234567...\n                               ^",
		"...55_45678901234567890 76_45678901234567890 97_45678...\n                          ^",
		"...55_45678901234567890 76_45678901234567890 97_45678...\n                                 ^",
		"...01234567890 76_45678901234567890 97_45678901234567...\n                               ^",
		"...76_45678901234567890 97_45678901234567890 118_5678...\n                          ^",
		"...76_45678901234567890 97_45678901234567890 118_5678...\n                                 ^",
		"...01234567890 97_45678901234567890 118_5678901234567...\n                               ^",
		"...97_45678901234567890 118_5678901234567890 139_5678...\n                          ^",
		"...97_45678901234567890 118_5678901234567890 139_5678...\n                                 ^",
		"...01234567890 118_5678901234567890 139_5678901234567...\n                               ^",
		"...118_5678901234567890 139_5678901234567890 160_5678...\n                          ^",
		"...118_5678901234567890 139_5678901234567890 160_5678...\n                                 ^",
		"...01234567890 139_5678901234567890 160_5678901234567...\n                               ^",
		"...139_5678901234567890 160_5678901234567890 \n                          ^",
		"...139_5678901234567890 160_5678901234567890 \n                                 ^",
		"...01234567890 160_5678901234567890 \n                               ^",
		"...160_5678901234567890 \n                      ^",
		"...160_5678901234567890 \n                       ^",
	}
	if len(got) != len(want) {
		t.Fatalf("%d outputs, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("output %d =\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
}

// The location Spanner's analyzer appends to an error: python-spanner's
// test_database_partitioned_error expects this message from the emulator.
func TestAtIsLineColumnLineAndCaret(t *testing.T) {
	sql := "UPDATE NonExistent SET name = 'foo' WHERE id > 1"
	if got, want := At(sql, 7), "[at 1:8]\nUPDATE NonExistent SET name = 'foo' WHERE id > 1\n       ^"; got != want {
		t.Errorf("At = %q, want %q", got, want)
	}
	if got, want := At("SELECT 1\nFROM Nope\r\nWHERE", 14), "[at 2:6]\nFROM Nope\n     ^"; got != want {
		t.Errorf("At on line 2 = %q, want %q", got, want)
	}
}
