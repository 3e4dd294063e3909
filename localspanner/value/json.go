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
	out, err := ParseJSON(s, false)
	if err != nil {
		return "", invalid("Invalid JSON value %q: %v", s, err)
	}
	return out, nil
}

// ParseJSON is NormalizeJSON with GoogleSQL's wide_number_mode (PARSE_JSON): when
// round is set, a number that does not round-trip through a double becomes the
// nearest double instead of an error. Its errors are the parser's own words.
func ParseJSON(s string, round bool) (string, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var b strings.Builder
	if err := (jsonNormalizer{dec: dec, round: round}).value(&b, 0); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return "", errors.New("unexpected end of input")
		}
		return "", err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "", errors.New("trailing data")
	}
	return b.String(), nil
}

// jsonNormalizer prints the JSON values dec reads, normalized.
type jsonNormalizer struct {
	dec   *json.Decoder
	round bool // wide_number_mode 'round' (else 'exact')
}

func (n jsonNormalizer) value(b *strings.Builder, depth int) error {
	dec := n.dec
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
			return n.array(b, depth+1)
		}
		return n.object(b, depth+1)
	case json.Number:
		num, err := jsonNumber(string(t), n.round)
		if err != nil {
			return err
		}
		b.WriteString(num)
	case string:
		writeJSONString(b, t)
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	}
	return nil
}

func (n jsonNormalizer) array(b *strings.Builder, depth int) error {
	dec := n.dec
	b.WriteByte('[')
	for i := 0; dec.More(); i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := n.value(b, depth); err != nil {
			return err
		}
	}
	_, err := dec.Token() // ]
	b.WriteByte(']')
	return err
}

func (n jsonNormalizer) object(b *strings.Builder, depth int) error {
	dec := n.dec
	members := map[string]string{}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var v strings.Builder
		if err := n.value(&v, depth); err != nil {
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
// ZetaSQL's for a number that does not (CheckNumberRoundtrip). With round (PARSE_JSON's
// wide_number_mode 'round') such a number becomes its double's shortest form instead.
func jsonNumber(s string, round bool) (string, error) {
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
	if round {
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
	return "", errors.New("input number " + s + " cannot round-trip through string representation")
}
