package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/pkg/output"
)

// helpColumns is the widest a help text prints, on a terminal or not (kubectl's help fits
// 80; flag descriptions and examples here are longer).
const helpColumns = 100

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

// Streams are the command's I/O, injected so commands run in-process in tests.
type Streams struct {
	In     io.Reader
	Out    io.Writer // results only
	ErrOut io.Writer // progress, warnings, errors
	// ErrIsTerminal enables progress lines.
	ErrIsTerminal bool
	// OutIsTerminal enables colour in results (never with NO_COLOR or --no-color: color.go).
	OutIsTerminal bool
	// Width is the width of the terminal Out prints on (terminal.go), 0 when Out is not a
	// terminal: results for people are fitted to it (output.Terminal), help to at most 100.
	Width int
}

// DefaultStreams are the process's stdin, stdout and stderr.
func DefaultStreams() Streams {
	return Streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ErrIsTerminal: cli.IsTerminal(os.Stderr), OutIsTerminal: cli.IsTerminal(os.Stdout), Width: cli.TerminalWidth(os.Stdout)}
}
