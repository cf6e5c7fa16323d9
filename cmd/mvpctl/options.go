package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// The global options (kubectl's connection flags, -v, --no-color) are accepted by every
// command but listed only by `mvpctl options`, as kubectl lists its own with `kubectl
// options`: each help page then shows the flags of its command, not twenty connection flags.

// usageTemplate is cobra's usage template with the command's own flags only, and a pointer to
// `mvpctl options` instead of the inherited ones.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .LocalNonPersistentFlags.HasAvailableFlags}}

Flags:
{{.LocalNonPersistentFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasHelpSubCommands}}

Additional help topics:{{range .Commands}}{{if .IsAdditionalHelpTopicCommand}}
  {{rpad .CommandPath .CommandPathPadding}} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}

Use "{{.Root.CommandPath}} options" for a list of global command-line options (applies to all commands).
`

func newOptionsCmd(*globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "options",
		Short: "Print the list of flags inherited by all commands (kubeconfig, context, TLS, -v, ...)",
		Long: `Print the flags every command accepts: kubectl's connection flags (--kubeconfig, --context,
--server, --token, TLS, impersonation, --request-timeout, -n), -v and --no-color.`,
		Example: `  mvpctl options`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "The following options can be passed to any command:\n\n%s",
				strings.TrimRight(cmd.Root().PersistentFlags().FlagUsages(), " \n")+"\n")
			return err
		},
	}
}
