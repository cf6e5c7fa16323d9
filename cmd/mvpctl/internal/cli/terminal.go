package cli

import (
	"os"
	"strconv"

	"golang.org/x/term"
)

// IsTerminal reports whether f is a terminal (a character device).
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// TerminalWidth is the width of f when it is a terminal: COLUMNS when set to a number (as
// shells export it, and as tests set it), else the terminal's own; 0 when f is not a
// terminal, so that a pipe or a file gets full lines.
func TerminalWidth(f *os.File) int {
	if !IsTerminal(f) {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		return w
	}
	return 0
}
