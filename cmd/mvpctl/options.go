package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// newOptionsCmd is `mvpctl options`: the global options (kubectl's connection flags, -v,
// --no-color), which every command accepts and none lists in its help (cli.WriteUsage).
func newOptionsCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "options",
		Short: "Print the list of flags inherited by all commands (kubeconfig, context, TLS, -v, ...)",
		Long: `Print the flags every command accepts: kubectl's connection flags (--kubeconfig, --context,
--server, --token, TLS, impersonation, --request-timeout, -n), -v and --no-color.`,
		Example: `  mvpctl options`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "The following options can be passed to any command:\n\n%s",
				strings.TrimRight(cmd.Root().PersistentFlags().FlagUsagesWrapped(g.helpWidth()), " \n")+"\n")
			return err
		},
	}
}
