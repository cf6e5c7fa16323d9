package render

import (
	"strconv"
	"strings"
)

// The small words several reports share.

// orNone is s, or <none> (kubectl's word for an empty cell) when it is empty.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// joinOrNone is s joined by commas, or <none> when there is nothing to join.
func joinOrNone(s []string) string {
	if len(s) == 0 {
		return "<none>"
	}
	return strings.Join(s, ",")
}

// num is a counter's value as Prometheus writes it: no exponent, no trailing zeros.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// column is the i-th cell of every row.
func column(rows [][]string, i int) []string {
	out := make([]string, len(rows))
	for j, r := range rows {
		out[j] = r[i]
	}
	return out
}
