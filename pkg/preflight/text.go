package preflight

import (
	"fmt"
	"strings"
)

// Helpers that word the findings' messages.

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}

func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, … (%d more)", strings.Join(items[:n], ", "), len(items)-n)
}
