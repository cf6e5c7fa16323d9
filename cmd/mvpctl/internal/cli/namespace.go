package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// UsesNamespaceAnnotation marks a command whose requests -n/--namespace places (explain,
// probe). Every other command routes by group/version/resource, for which the namespace
// makes no difference, and refuses -n rather than ignoring it.
const UsesNamespaceAnnotation = "mvpctl.io/uses-namespace"

// UsesNamespace marks cmd as one whose requests -n places.
func UsesNamespace(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[UsesNamespaceAnnotation] = "true"
	return cmd
}

// CheckNamespaceFlag refuses -n on a command that would ignore it.
func CheckNamespaceFlag(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("namespace")
	if f == nil || !f.Changed || cmd.Annotations[UsesNamespaceAnnotation] != "" {
		return nil
	}
	return fmt.Errorf("-n/--namespace has no meaning for %q: routing depends on the group/version/resource, not the namespace (-n sets the namespace of the requests of mvpctl explain and mvpctl probe)", cmd.CommandPath())
}
