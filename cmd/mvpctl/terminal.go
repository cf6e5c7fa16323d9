package main

import (
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mvpctl/mvpctl/pkg/output"
)

// helpColumns is the widest a help text prints, on a terminal or not (kubectl's help fits
// 80; flag descriptions and examples here are longer).
const helpColumns = 100

// terminalWidth is the width of f when it is a terminal: COLUMNS when set to a number (as
// shells export it, and as tests set it), else the terminal's own; 0 when f is not a
// terminal, so that a pipe or a file gets full lines.
func terminalWidth(f *os.File) int {
	if !isTerminal(f) {
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

// helpWidth is the width help texts wrap at: the terminal's, at most helpColumns.
func (g *globalOptions) helpWidth() int {
	if w := g.streams.Width; w > 0 && w < helpColumns {
		return w
	}
	return helpColumns
}

// fitHelp makes every help text of root, and the usage its flags print, wrap at helpWidth.
func fitHelp(root *cobra.Command, g *globalOptions) {
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		out := c.OutOrStdout()
		c.SetOut(output.Wrap(out, g.helpWidth()))
		defer c.SetOut(out)
		help(c, args)
	})
}
