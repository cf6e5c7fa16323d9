package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/pkg/output"
)

// The global options (kubectl's connection flags, -v, --no-color) are accepted by every
// command but listed only by `mvpctl options`, as kubectl lists its own with `kubectl
// options`: each help page then shows the flags of its command, not twenty connection flags.

// WriteUsage is cobra's default usage with the command's own flags only, and a pointer to
// `mvpctl options` instead of the inherited ones. It is Go rather than a usage template
// (SetUsageTemplate): executing a text/template makes reflect's MethodByName reachable, which
// stops the linker from dropping unused methods anywhere in the binary (+3.6 MB, measured;
// docs/performance.md).
func WriteUsage(c *cobra.Command) error {
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		fmt.Fprintf(&b, "\n  %s", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n  %s [command]", c.CommandPath())
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(&b, "\n\nAliases:\n  %s", c.NameAndAliases())
	}
	if c.HasExample() {
		fmt.Fprintf(&b, "\n\nExamples:\n%s", c.Example)
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if c.LocalNonPersistentFlags().HasAvailableFlags() {
		fmt.Fprintf(&b, "\n\nFlags:\n%s", strings.TrimRightFunc(c.LocalNonPersistentFlags().FlagUsagesWrapped(output.TerminalWidth(c.OutOrStderr())), unicode.IsSpace))
	}
	if c.HasHelpSubCommands() {
		b.WriteString("\n\nAdditional help topics:")
		for _, sub := range c.Commands() {
			if sub.IsAdditionalHelpTopicCommand() {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.CommandPathPadding(), sub.CommandPath(), sub.Short)
			}
		}
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	fmt.Fprintf(&b, "\n\nUse \"%s options\" for a list of global command-line options (applies to all commands).\n", c.Root().CommandPath())
	_, err := io.WriteString(c.OutOrStderr(), b.String())
	return err
}
