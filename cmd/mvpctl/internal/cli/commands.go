package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// CommandName is the first argument that is neither a flag nor a flag's value, by the rule
// cobra's Find uses (stripFlags): "--flag value" and "-f value" take the next argument as
// the value unless flags knows the flag as one that needs none; "--" ends the search.
func CommandName(args []string, flags *pflag.FlagSet) string {
	needsNoValue := func(f *pflag.Flag) bool { return f != nil && f.NoOptDefVal != "" }
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "="):
			if !needsNoValue(flags.Lookup(a[2:])) {
				i++
			}
		case strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && len(a) == 2:
			if !needsNoValue(flags.ShorthandLookup(a[1:])) {
				i++
			}
		case a != "" && !strings.HasPrefix(a, "-"):
			return a
		}
	}
	return ""
}

// CommandGroup makes cmd, a command that only holds subcommands, reject an unknown
// subcommand with a usage error (exit 1) and cobra's suggestion, as the root command does;
// without it cobra prints the help and exits 0, so a typo in a CI script passes. Run without
// arguments, the group prints its help.
func CommandGroup(cmd *cobra.Command) *cobra.Command {
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2 // cobra's default, which SuggestionsFor does not apply
		}
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return errors.New(msg)
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	return cmd
}
