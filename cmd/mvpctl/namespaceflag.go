package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// usesNamespaceAnnotation marks a command whose requests -n/--namespace places (explain,
// probe). Every other command routes by group/version/resource, for which the namespace
// makes no difference, and refuses -n rather than ignoring it.
const usesNamespaceAnnotation = "mvpctl.io/uses-namespace"

// usesNamespace marks cmd as one whose requests -n places.
func usesNamespace(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[usesNamespaceAnnotation] = "true"
	return cmd
}

// checkNamespaceFlag refuses -n on a command that would ignore it.
func checkNamespaceFlag(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("namespace")
	if f == nil || !f.Changed || cmd.Annotations[usesNamespaceAnnotation] != "" {
		return nil
	}
	return fmt.Errorf("-n/--namespace has no meaning for %q: routing depends on the group/version/resource, not the namespace (-n sets the namespace of the requests of mvpctl explain and mvpctl probe)", cmd.CommandPath())
}
