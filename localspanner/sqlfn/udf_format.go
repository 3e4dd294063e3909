package sqlfn

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spanload/spanload/localspanner/value"
)

// formatTime renders t with GoogleSQL's format elements (a strftime dialect).
func formatTime(f string, t time.Time) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'C':
			fmt.Fprintf(&b, "%02d", t.Year()/100)
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'k':
			fmt.Fprintf(&b, "%2d", t.Hour())
		case 'I':
			fmt.Fprintf(&b, "%02d", (t.Hour()+11)%12+1)
		case 'l':
			fmt.Fprintf(&b, "%2d", (t.Hour()+11)%12+1)
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'P':
			b.WriteString(strings.ToLower(t.Format("PM")))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'R':
			b.WriteString(t.Format("15:04"))
		case 'c':
			b.WriteString(t.Format("Mon Jan _2 15:04:05 2006"))
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'u':
			b.WriteString(strconv.Itoa((int(t.Weekday())+6)%7 + 1))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'U':
			fmt.Fprintf(&b, "%02d", (t.YearDay()+6-int(t.Weekday()))/7)
		case 'W':
			fmt.Fprintf(&b, "%02d", (t.YearDay()+6-(int(t.Weekday())+6)%7)/7)
		case 'V':
			_, w := t.ISOWeek()
			fmt.Fprintf(&b, "%02d", w)
		case 'G':
			y, _ := t.ISOWeek()
			b.WriteString(strconv.Itoa(y))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		case 'E':
			n, err := formatExtended(&b, f[i+1:], t)
			if err != nil {
				return "", err
			}
			i += n
		default:
			return "", rtInvalid("Invalid format: %%%c is not a supported format element", f[i])
		}
	}
	return b.String(), nil
}

// formatExtended handles %E<n>S, %E*S, %E4Y and %Ez after the "%E"; it returns how
// many more bytes of the format it consumed.
func formatExtended(b *strings.Builder, rest string, t time.Time) (int, error) {
	switch {
	case strings.HasPrefix(rest, "*S"):
		fmt.Fprintf(b, "%02d", t.Second())
		if ns := t.Nanosecond(); ns != 0 {
			b.WriteString(strings.TrimRight(fmt.Sprintf(".%09d", ns), "0"))
		}
		return 2, nil
	case strings.HasPrefix(rest, "4Y"):
		fmt.Fprintf(b, "%04d", t.Year())
		return 2, nil
	case strings.HasPrefix(rest, "z"):
		b.WriteString(t.Format("-07:00"))
		return 1, nil
	case len(rest) >= 2 && rest[0] >= '0' && rest[0] <= '9' && rest[1] == 'S':
		n := int(rest[0] - '0')
		fmt.Fprintf(b, "%02d", t.Second())
		if n > 0 {
			b.WriteString("." + fmt.Sprintf("%09d", t.Nanosecond())[:n])
		}
		return 2, nil
	}
	return 0, rtInvalid("Invalid format: unsupported %%E element")
}

// udfFormatTime is FORMAT_TIMESTAMP(format, ts[, zone]) (kind TIMESTAMP) and
// FORMAT_DATE(format, date) (kind DATE).
func udfFormatTime(format, x any, kind string, zone any) (any, error) {
	if null(format) || null(x) {
		return nil, nil
	}
	f, _ := asText(format)
	t, err := storedTime(x, kind, zone)
	if err != nil {
		return nil, err
	}
	return formatTime(f, t)
}

// udfFormat is FORMAT(format, args...); types names each argument's GoogleSQL type,
// comma-separated, so cells print as their type does.
func udfFormat(format any, types string, args ...any) (any, error) {
	if null(format) {
		return nil, nil
	}
	f, _ := asText(format)
	kinds := strings.Split(types, ",")
	var b strings.Builder
	next := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("-+ #0123456789.*'", f[j]) >= 0 {
			j++
		}
		if j >= len(f) {
			return nil, rtInvalid("Invalid format string: %q", f)
		}
		spec, verb := f[i+1:j], f[j]
		i = j
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		if next >= len(args) {
			return nil, rtInvalid("Too few arguments to FORMAT for format string %q", f)
		}
		arg, kind := args[next], kinds[next]
		next++
		if null(arg) {
			b.WriteString("NULL")
			continue
		}
		s, err := formatArg(spec, verb, arg, kind)
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
	}
	if next < len(args) {
		return nil, rtInvalid("Too many arguments to FORMAT for format string %q", f)
	}
	return b.String(), nil
}

func formatArg(spec string, verb byte, arg any, kind string) (string, error) {
	text := func() (string, error) {
		switch kind {
		case "STRING", "JSON", "DATE", "NUMERIC":
			s, _ := asText(arg)
			return s, nil
		case "BYTES":
			s, _ := asText(arg)
			return strconv.Quote(s), nil
		}
		v, err := castValue(arg, kind, "STRING")
		if err != nil {
			return "", err
		}
		s, _ := v.(string)
		return s, nil
	}
	switch verb {
	case 'd', 'i':
		n, ok := asInt(arg)
		if !ok || kind != "INT64" {
			return "", rtInvalid("FORMAT %%%c expects INT64, got %s", verb, kind)
		}
		return fmt.Sprintf("%"+spec+"d", n), nil
	case 'x', 'X', 'o':
		n, ok := asInt(arg)
		if !ok || kind != "INT64" {
			return "", rtInvalid("FORMAT %%%c expects INT64, got %s", verb, kind)
		}
		return fmt.Sprintf("%"+spec+string(verb), n), nil
	case 'f', 'F', 'e', 'E', 'g', 'G':
		x, ok := asFloat(arg)
		if !ok {
			return "", rtInvalid("FORMAT %%%c expects a number, got %s", verb, kind)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return formatFloat(x), nil
		}
		return fmt.Sprintf("%"+spec+string(verb), x), nil
	case 's', 't':
		s, err := text()
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%"+spec+"s", s), nil
	case 'T':
		s, err := text()
		if err != nil {
			return "", err
		}
		switch kind {
		case "STRING":
			return strconv.Quote(s), nil
		case "BYTES":
			return "b" + s, nil
		case "TIMESTAMP", "DATE", "NUMERIC", "JSON":
			return kind + " " + strconv.Quote(s), nil
		}
		return s, nil
	}
	return "", rtInvalid("Invalid format specifier %%%c", verb)
}

// udfToJSONString is TO_JSON_STRING(value) for a scalar or array cell of type kind.
func udfToJSONString(x any, kind string) (any, error) {
	if null(x) {
		return "null", nil
	}
	switch {
	case kind == "JSON":
		return x, nil
	case kind == "BOOL":
		n, _ := asInt(x)
		return strconv.FormatBool(n != 0), nil
	case kind == "INT64":
		n, _ := asInt(x)
		return strconv.FormatInt(n, 10), nil
	case kind == "FLOAT64" || kind == "FLOAT32":
		f, _ := asFloat(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return strconv.Quote(formatFloat(f)), nil
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case kind == "BYTES":
		s, _ := asText(x)
		return strconv.Quote(udfBase64(s).(string)), nil
	case kind == "TIMESTAMP":
		t, err := parseStoredTimestamp(x)
		if err != nil {
			return nil, rtInvalid("%v", err)
		}
		return strconv.Quote(value.WireTimestamp(t)), nil
	case strings.HasPrefix(kind, "ARRAY<"):
		s, _ := asText(x)
		return s, nil
	}
	s, _ := asText(x)
	return strconv.Quote(s), nil
}
