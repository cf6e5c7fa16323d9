package main

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// stepKindsHelp lists, for simulate run --help, every action a --step takes, with what it
// does and an example.
func stepKindsHelp() string {
	var b strings.Builder
	b.WriteString("Each --step is ACTION:SERVER, applied in the order given (a scenario file's steps: the same actions):\n")
	width := 0
	for _, k := range simulate.StepKinds {
		width = max(width, len(k.Example))
	}
	for _, k := range simulate.StepKinds {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, k.Example, k.Does)
	}
	return strings.TrimRight(b.String(), "\n")
}
