package value

import (
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// JSON values are stored normalized as Spanner's "Work with JSON data" page specifies:
// no whitespace, object members sorted by key, only the first of duplicate keys kept,
// array order and strings preserved, at most 80 levels of nesting; numbers keep their
// value: integers in the INT64 or UINT64 range exactly, other numbers only when they
// survive a round trip through a double (jsonNumber), else the value is refused.

// maxJSONDepth is Spanner's JSON nesting limit.
const maxJSONDepth = 80

// NormalizeJSON parses JSON text and prints it normalized (see above).
func NormalizeJSON(s string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var b strings.Builder
	if err := normalizeJSONValue(dec, &b, 0); err != nil {
		return "", invalid("Invalid JSON value %q: %v", s, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "", invalid("Invalid JSON value %q: trailing data", s)
	}
	return b.String(), nil
}

func normalizeJSONValue(dec *json.Decoder, b *strings.Builder, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= maxJSONDepth {
			return errors.New("nested deeper than 80 levels")
		}
		if t == '[' {
			return normalizeJSONArray(dec, b, depth+1)
		}
		return normalizeJSONObject(dec, b, depth+1)
	case json.Number:
		n, err := jsonNumber(string(t))
		if err != nil {
			return err
		}
		b.WriteString(n)
	case string:
		writeJSONString(b, t)
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	}
	return nil
}

func normalizeJSONArray(dec *json.Decoder, b *strings.Builder, depth int) error {
	b.WriteByte('[')
	for i := 0; dec.More(); i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := normalizeJSONValue(dec, b, depth); err != nil {
			return err
		}
	}
	_, err := dec.Token() // ]
	b.WriteByte(']')
	return err
}

func normalizeJSONObject(dec *json.Decoder, b *strings.Builder, depth int) error {
	members := map[string]string{}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var v strings.Builder
		if err := normalizeJSONValue(dec, &v, depth); err != nil {
			return err
		}
		if _, dup := members[key]; !dup {
			members[key] = v.String()
			keys = append(keys, key)
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return err
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, k)
		b.WriteByte(':')
		b.WriteString(members[k])
	}
	b.WriteByte('}')
	return nil
}

func writeJSONString(b *strings.Builder, s string) {
	var q strings.Builder
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.WriteString(strings.TrimSuffix(q.String(), "\n"))
}

// jsonNumber checks that a JSON number keeps its value in Spanner and returns its text.
// "Work with JSON data": integers in the INT64 and UINT64 ranges are preserved; other
// numbers are preserved when they "can be roundtripped from string to double to string
// without precision loss", and otherwise the statement fails ("SELECT JSON
// '2.2412421353246235436' fails"). A double prints back either in its shortest form or
// with the 17 significant digits that name every double, so a text with the value of
// either form round-trips: the Go client's integration test writes
// 0.39240506000000003, the 17-digit form of the double 0.39240506. The message is
// ZetaSQL's for a number that does not (CheckNumberRoundtrip).
func jsonNumber(s string) (string, error) {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return s, nil
	}
	if _, err := strconv.ParseUint(s, 10, 64); err == nil {
		return s, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", errors.New("number " + s + " is out of range")
	}
	if exact, ok := new(big.Rat).SetString(s); ok {
		for _, digits := range []int{-1, 17} {
			back, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', digits, 64))
			if exact.Cmp(back) == 0 {
				return s, nil
			}
		}
	}
	return "", errors.New("input number " + s + " cannot round-trip through string representation")
}
