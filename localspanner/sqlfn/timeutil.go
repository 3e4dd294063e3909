package sqlfn

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // time zones for AT TIME ZONE and Spanner's default zone

	"github.com/spanload/spanload/localspanner/value"
)

// DefaultZoneName is Spanner's default time zone for timestamp literals, EXTRACT,
// CAST to/from STRING and DATE.
const DefaultZoneName = "America/Los_Angeles"

var zones sync.Map // name -> *time.Location

func loadZone(name string) (*time.Location, error) {
	if z, ok := zones.Load(name); ok {
		return z.(*time.Location), nil
	}
	var loc *time.Location
	var err error
	if strings.EqualFold(name, "UTC") || name == "Z" {
		loc = time.UTC
	} else if off, ok := parseOffset(name); ok {
		loc = time.FixedZone(name, off)
	} else {
		loc, err = time.LoadLocation(name)
		if err != nil {
			return nil, fmt.Errorf("Invalid time zone: %s", name)
		}
	}
	zones.Store(name, loc)
	return loc, nil
}

func DefaultZone() *time.Location {
	z, err := loadZone(DefaultZoneName)
	if err != nil {
		return time.UTC
	}
	return z
}

// parseOffset reads "+H", "-HH", "+HH:MM", "UTC+H".
func parseOffset(s string) (int, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "UTC"), "utc")
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	h, m, hasM := strings.Cut(s[1:], ":")
	hh, err := strconv.Atoi(h)
	if err != nil || hh > 14 || len(h) > 2 {
		return 0, false
	}
	mm := 0
	if hasM {
		if mm, err = strconv.Atoi(m); err != nil || mm > 59 || len(m) != 2 {
			return 0, false
		}
	}
	return sign * (hh*3600 + mm*60), true
}

// parseTimestampText parses GoogleSQL's canonical timestamp text
// 'YYYY-[M]M-[D]D[( |T)[H]H:[M]M:[S]S[.F]][time zone]' in zone def when it names none.
func parseTimestampText(s string, def *time.Location) (time.Time, error) {
	bad := fmt.Errorf("invalid timestamp %q", s)
	s = strings.TrimSpace(s)
	datePart, rest := s, ""
	if i := strings.IndexAny(s, " Tt"); i >= 0 {
		datePart, rest = s[:i], strings.TrimSpace(s[i+1:])
	}
	ymd := strings.Split(datePart, "-")
	if len(ymd) != 3 {
		return time.Time{}, bad
	}
	y, e1 := strconv.Atoi(ymd[0])
	mo, e2 := strconv.Atoi(ymd[1])
	d, e3 := strconv.Atoi(ymd[2])
	if e1 != nil || e2 != nil || e3 != nil || len(ymd[0]) != 4 || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, bad
	}
	loc := def
	var hh, mi, ss, ns int
	if rest != "" {
		// Split the time from the zone.
		timePart, zone := rest, ""
		if i := strings.IndexAny(rest, "Zz+- "); i >= 0 {
			timePart, zone = rest[:i], strings.TrimSpace(rest[i:])
		}
		if timePart != "" {
			hms := strings.Split(timePart, ":")
			if len(hms) != 3 {
				return time.Time{}, bad
			}
			var err error
			if hh, err = strconv.Atoi(hms[0]); err != nil || hh > 23 {
				return time.Time{}, bad
			}
			if mi, err = strconv.Atoi(hms[1]); err != nil || mi > 59 {
				return time.Time{}, bad
			}
			sec, frac, hasFrac := strings.Cut(hms[2], ".")
			if ss, err = strconv.Atoi(sec); err != nil || ss > 59 {
				return time.Time{}, bad
			}
			if hasFrac {
				if len(frac) == 0 || len(frac) > 9 {
					return time.Time{}, bad
				}
				n, err := strconv.Atoi(frac)
				if err != nil {
					return time.Time{}, bad
				}
				for i := len(frac); i < 9; i++ {
					n *= 10
				}
				ns = n
			}
		}
		if zone != "" {
			if zone == "Z" || zone == "z" {
				loc = time.UTC
			} else {
				z, err := loadZone(zone)
				if err != nil {
					return time.Time{}, bad
				}
				loc = z
			}
		}
	}
	t := time.Date(y, time.Month(mo), d, hh, mi, ss, ns, loc)
	if t.Day() != d {
		return time.Time{}, bad
	}
	return t, nil
}

// ParseTimestampLiteral returns the storage text of a TIMESTAMP literal.
func ParseTimestampLiteral(s string) (string, error) {
	t, err := parseTimestampText(s, DefaultZone())
	if err != nil {
		return "", err
	}
	if t.Year() < 1 || t.UTC().Year() > 9999 || t.UTC().Year() < 1 {
		return "", fmt.Errorf("timestamp out of range")
	}
	return value.FormatTimestamp(t), nil
}

// parseStoredTimestamp reads a TIMESTAMP cell.
func parseStoredTimestamp(x any) (time.Time, error) {
	s, ok := x.(string)
	if !ok {
		if b, isB := x.([]byte); isB {
			s = string(b)
		} else {
			return time.Time{}, fmt.Errorf("not a TIMESTAMP value: %v", x)
		}
	}
	return time.Parse(time.RFC3339Nano, s)
}

func checkTimestampRange(t time.Time) error {
	u := t.UTC()
	if u.Year() < 1 || u.Year() > 9999 {
		return fmt.Errorf("timestamp out of range")
	}
	return nil
}

// formatTimestampString is CAST(TIMESTAMP AS STRING): canonical text in zone loc.
func formatTimestampString(t time.Time, loc *time.Location) string {
	s := t.In(loc).Format("2006-01-02 15:04:05.999999999-07:00")
	return strings.TrimSuffix(s, ":00")
}

func timeOf(year int) time.Time { return time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
