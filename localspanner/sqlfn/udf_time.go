package sqlfn

import (
	"math"
	"math/big"
	"time"

	"github.com/spanload/spanload/localspanner/value"
)

var partNanos = map[string]int64{
	"NANOSECOND":  1,
	"MICROSECOND": 1e3,
	"MILLISECOND": 1e6,
	"SECOND":      1e9,
	"MINUTE":      60e9,
	"HOUR":        3600e9,
	"DAY":         86400e9,
}

func zoneArg(z any) (*time.Location, error) {
	if null(z) {
		return DefaultZone(), nil
	}
	s, _ := asText(z)
	loc, err := loadZone(s)
	if err != nil {
		return nil, rtInvalid("%v", err)
	}
	return loc, nil
}

// udfTimestampAdd is TIMESTAMP_ADD/SUB(ts, INTERVAL n part); sign is 1 or -1.
func udfTimestampAdd(ts, n any, part string, sign int64) (any, error) {
	if null(ts) || null(n) {
		return nil, nil
	}
	t, err := parseStoredTimestamp(ts)
	if err != nil {
		return nil, rtInvalid("%v", err)
	}
	k, ok := asInt(n)
	if !ok {
		return nil, rtInvalid("INTERVAL value must be INT64")
	}
	unit, ok := partNanos[part]
	if !ok {
		return nil, rtInvalid("Unsupported date part %s in TIMESTAMP_ADD", part)
	}
	k *= sign
	// Add whole seconds and the remaining nanoseconds separately to avoid overflow.
	total := new(big.Int).Mul(big.NewInt(k), big.NewInt(unit))
	secs, nanos := new(big.Int).QuoRem(total, big.NewInt(1e9), new(big.Int))
	if !secs.IsInt64() || math.Abs(float64(secs.Int64())) > 4e11 {
		return nil, rtErr("TIMESTAMP_ADD overflow")
	}
	r := t.Add(time.Duration(secs.Int64()) * time.Second).Add(time.Duration(nanos.Int64()))
	if err := checkTimestampRange(r); err != nil {
		return nil, rtErr("Timestamp overflow in TIMESTAMP_ADD")
	}
	return value.FormatTimestamp(r), nil
}

func udfTimestampDiff(a, b any, part string) (any, error) {
	if null(a) || null(b) {
		return nil, nil
	}
	ta, err1 := parseStoredTimestamp(a)
	tb, err2 := parseStoredTimestamp(b)
	if err1 != nil || err2 != nil {
		return nil, rtInvalid("TIMESTAMP_DIFF expects timestamps")
	}
	unit, ok := partNanos[part]
	if !ok {
		return nil, rtInvalid("Unsupported date part %s in TIMESTAMP_DIFF", part)
	}
	d := new(big.Int).Mul(big.NewInt(ta.Unix()-tb.Unix()), big.NewInt(1e9))
	d.Add(d, big.NewInt(int64(ta.Nanosecond()-tb.Nanosecond())))
	d.Quo(d, big.NewInt(unit))
	if !d.IsInt64() {
		return nil, rtErr("TIMESTAMP_DIFF overflow")
	}
	return d.Int64(), nil
}

func truncTime(t time.Time, part string) (time.Time, bool) {
	y, m, d := t.Date()
	loc := t.Location()
	switch part {
	case "NANOSECOND":
		return t, true
	case "MICROSECOND":
		return t.Truncate(time.Microsecond), true
	case "MILLISECOND":
		return t.Truncate(time.Millisecond), true
	case "SECOND":
		return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, loc), true
	case "MINUTE":
		return time.Date(y, m, d, t.Hour(), t.Minute(), 0, 0, loc), true
	case "HOUR":
		return time.Date(y, m, d, t.Hour(), 0, 0, 0, loc), true
	case "DAY":
		return time.Date(y, m, d, 0, 0, 0, 0, loc), true
	case "WEEK":
		return time.Date(y, m, d-int(t.Weekday()), 0, 0, 0, 0, loc), true
	case "ISOWEEK":
		wd := (int(t.Weekday()) + 6) % 7
		return time.Date(y, m, d-wd, 0, 0, 0, 0, loc), true
	case "MONTH":
		return time.Date(y, m, 1, 0, 0, 0, 0, loc), true
	case "QUARTER":
		return time.Date(y, m-(m-1)%3, 1, 0, 0, 0, 0, loc), true
	case "YEAR":
		return time.Date(y, 1, 1, 0, 0, 0, 0, loc), true
	}
	return t, false
}

func udfTimestampTrunc(ts any, part string, zone any) (any, error) {
	if null(ts) {
		return nil, nil
	}
	t, err := parseStoredTimestamp(ts)
	if err != nil {
		return nil, rtInvalid("%v", err)
	}
	loc, err := zoneArg(zone)
	if err != nil {
		return nil, err
	}
	r, ok := truncTime(t.In(loc), part)
	if !ok {
		return nil, rtInvalid("Unsupported date part %s in TIMESTAMP_TRUNC", part)
	}
	return value.FormatTimestamp(r), nil
}

func ExtractPartOK(part string, from interface{ String() string }) bool {
	isDate := from.String() == "DATE"
	switch part {
	case "DAYOFWEEK", "DAY", "DAYOFYEAR", "WEEK", "ISOWEEK", "MONTH", "QUARTER", "YEAR", "ISOYEAR":
		return true
	case "NANOSECOND", "MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DATE":
		return !isDate
	}
	return false
}

// udfExtract is EXTRACT(part FROM x [AT TIME ZONE zone]); kind is "TIMESTAMP" or "DATE".
func udfExtract(part string, x any, kind string, zone any) (any, error) {
	if null(x) {
		return nil, nil
	}
	t, err := storedTime(x, kind, zone)
	if err != nil {
		return nil, err
	}
	switch part {
	case "NANOSECOND":
		return int64(t.Nanosecond()), nil
	case "MICROSECOND":
		return int64(t.Nanosecond() / 1e3), nil
	case "MILLISECOND":
		return int64(t.Nanosecond() / 1e6), nil
	case "SECOND":
		return int64(t.Second()), nil
	case "MINUTE":
		return int64(t.Minute()), nil
	case "HOUR":
		return int64(t.Hour()), nil
	case "DAYOFWEEK":
		return int64(t.Weekday()) + 1, nil
	case "DAY":
		return int64(t.Day()), nil
	case "DAYOFYEAR":
		return int64(t.YearDay()), nil
	case "WEEK":
		// Weeks start on Sunday; days before the year's first Sunday are week 0.
		firstSunday := (7 - int(time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC).Weekday())) % 7
		return int64((t.YearDay() - 1 - firstSunday + 7) / 7), nil
	case "ISOWEEK":
		_, w := t.ISOWeek()
		return int64(w), nil
	case "ISOYEAR":
		y, _ := t.ISOWeek()
		return int64(y), nil
	case "MONTH":
		return int64(t.Month()), nil
	case "QUARTER":
		return int64((int(t.Month())-1)/3 + 1), nil
	case "YEAR":
		return int64(t.Year()), nil
	case "DATE":
		return t.Format("2006-01-02"), nil
	}
	return nil, rtInvalid("Unsupported date part %s", part)
}

var unitDiv = map[string]int64{"SECONDS": 1e9, "MILLIS": 1e6, "MICROS": 1e3}

func udfUnix(ts any, unit string) (any, error) {
	if null(ts) {
		return nil, nil
	}
	t, err := parseStoredTimestamp(ts)
	if err != nil {
		return nil, rtInvalid("%v", err)
	}
	div := unitDiv[unit]
	n := new(big.Int).Mul(big.NewInt(t.Unix()), big.NewInt(1e9))
	n.Add(n, big.NewInt(int64(t.Nanosecond())))
	q, m := new(big.Int).DivMod(n, big.NewInt(div), new(big.Int))
	_ = m
	return q.Int64(), nil
}

func udfFromUnix(n any, unit string) (any, error) {
	if null(n) {
		return nil, nil
	}
	k, ok := asInt(n)
	if !ok {
		return nil, rtInvalid("TIMESTAMP_%s expects INT64", unit)
	}
	div := unitDiv[unit]
	per := int64(1e9) / div
	secs, rem := k/per, k%per
	if rem < 0 {
		secs--
		rem += per
	}
	if secs > 253402300799 || secs < -62135596800 {
		return nil, rtErr("Timestamp value out of range: %d", k)
	}
	return value.FormatTimestamp(time.Unix(secs, rem*div)), nil
}

func udfDateAdd(d, n any, part string, sign int64) (any, error) {
	if null(d) || null(n) {
		return nil, nil
	}
	s, _ := asText(d)
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return nil, rtInvalid("not a DATE: %q", s)
	}
	k, ok := asInt(n)
	if !ok || math.Abs(float64(k)) > 1e7 {
		return nil, rtErr("DATE_ADD out of range")
	}
	k *= sign
	switch part {
	case "DAY":
		t = t.AddDate(0, 0, int(k))
	case "WEEK":
		t = t.AddDate(0, 0, int(7*k))
	case "MONTH", "QUARTER", "YEAR":
		months := int(k)
		if part == "QUARTER" {
			months *= 3
		} else if part == "YEAR" {
			months *= 12
		}
		// Clamp to the last day of the month, as GoogleSQL does.
		first := time.Date(t.Year(), t.Month()+time.Month(months), 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1).Day()
		day := t.Day()
		if day > last {
			day = last
		}
		t = time.Date(first.Year(), first.Month(), day, 0, 0, 0, 0, time.UTC)
	default:
		return nil, rtInvalid("Unsupported date part %s in DATE_ADD", part)
	}
	if t.Year() < 1 || t.Year() > 9999 {
		return nil, rtErr("DATE_ADD out of range")
	}
	return t.Format("2006-01-02"), nil
}

func udfDateDiff(a, b any, part string) (any, error) {
	if null(a) || null(b) {
		return nil, nil
	}
	sa, _ := asText(a)
	sb, _ := asText(b)
	ta, err1 := time.Parse("2006-01-02", sa)
	tb, err2 := time.Parse("2006-01-02", sb)
	if err1 != nil || err2 != nil {
		return nil, rtInvalid("DATE_DIFF expects dates")
	}
	switch part {
	case "DAY":
		return int64(ta.Sub(tb).Hours() / 24), nil
	case "WEEK":
		wa, _ := truncTime(ta, "WEEK")
		wb, _ := truncTime(tb, "WEEK")
		return int64(wa.Sub(wb).Hours() / 24 / 7), nil
	case "MONTH":
		return int64((ta.Year()-tb.Year())*12 + int(ta.Month()) - int(tb.Month())), nil
	case "QUARTER":
		return int64((ta.Year()-tb.Year())*4 + (int(ta.Month())-1)/3 - (int(tb.Month())-1)/3), nil
	case "YEAR":
		return int64(ta.Year() - tb.Year()), nil
	}
	return nil, rtInvalid("Unsupported date part %s in DATE_DIFF", part)
}

// storedTime decodes a stored DATE cell, or a stored TIMESTAMP cell seen in the time zone
// zone (the default zone when zone is NULL).
func storedTime(x any, kind string, zone any) (time.Time, error) {
	if kind == "DATE" {
		s, _ := asText(x)
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return time.Time{}, rtInvalid("not a DATE: %q", s)
		}
		return d, nil
	}
	ts, err := parseStoredTimestamp(x)
	if err != nil {
		return time.Time{}, rtInvalid("%v", err)
	}
	loc, err := zoneArg(zone)
	if err != nil {
		return time.Time{}, err
	}
	return ts.In(loc), nil
}

// IsFixedPart reports whether part is a fixed-length TIMESTAMP_ADD/DIFF part
// (NANOSECOND .. DAY).
func IsFixedPart(part string) bool { return partNanos[part] != 0 }

// TruncPartOK reports whether part is a valid TIMESTAMP_TRUNC / DATE_TRUNC part.
func TruncPartOK(part string) bool {
	_, ok := truncTime(timeOf(2000), part)
	return ok
}
