package frontend

import "strconv"

func formatMs(ms float64) string { return strconv.FormatFloat(ms, 'f', 2, 64) + " msecs" }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
