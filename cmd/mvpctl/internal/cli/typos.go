package cli

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// A first-hour stumble gets the answer it needs: a flag typo the closest valid name, a flag
// given to a group of commands the command it belongs to, servers separated by a space the
// comma.

// FlagError is every command's flag-parsing error (cobra's FlagErrorFunc), with a hint.
func FlagError(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	if subs := subcommandsWithFlag(c, name); len(subs) > 0 {
		return fmt.Errorf("%w: %s needs a command first: %s %s --%s ...",
			err, c.CommandPath(), c.CommandPath(), strings.Join(subs, "|"), name)
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if near := NearestName(name, names); near != "" {
		return fmt.Errorf("%w (did you mean --%s?)", err, near)
	}
	return err
}

// subcommandsWithFlag are the names of c's subcommands that have the flag name.
func subcommandsWithFlag(c *cobra.Command, name string) []string {
	var out []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && sub.Flags().Lookup(name) != nil {
			out = append(out, sub.Name())
		}
	}
	return out
}

// NearestName is the candidate closest to name by edit distance, if it is close enough to
// be a typo of it (at most a third of its length, and 2), or one name begins with the other;
// "" when none is.
func NearestName(name string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := snapshot.EditDistance(name, c)
		if strings.HasPrefix(c, name) || strings.HasPrefix(name, c) {
			d = min(d, 1)
		}
		if d <= min(2, max(1, len(name)/3)) && (best == "" || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// NoArgs is cobra.NoArgs, saying what an argument after --servers is: the next server,
// which the comma separates.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if f := cmd.Flags().Lookup("servers"); f != nil && f.Changed && strings.Contains(args[0], "=") {
		return fmt.Errorf("unknown argument %q: separate the servers of --servers with commas, not spaces: --servers %s,%s",
			args[0], f.Value.String(), strings.Join(args, ","))
	}
	return cobra.NoArgs(cmd, args)
}
