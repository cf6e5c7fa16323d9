package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/output"
)

func addColorFlag(fs *pflag.FlagSet, g *globalOptions) {
	fs.BoolVar(&g.noColor, "no-color", false, "never colour results (also when NO_COLOR is set; colour is only ever used when stdout is a terminal)")
}

// color reports whether results are coloured: stdout is a terminal, NO_COLOR (no-color.org:
// set and not empty) is not set, and --no-color was not given.
func (g *globalOptions) color() bool {
	return g.streams.OutIsTerminal && os.Getenv("NO_COLOR") == "" && !g.noColor
}

// outputOptions are the options -o and --no-headers give, with colour as color says: for the
// commands whose results have outcomes to colour.
func (g *globalOptions) outputOptions(cmd *cobra.Command, f *output.Flags) (output.Options, error) {
	o, err := f.Options(cmd.CommandPath())
	o.Color = err == nil && g.color()
	return o, err
}
