package main

import (
	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/buildinfo"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Set by the Makefile with -ldflags -X.
var (
	version   = "v0.0.0-dev"
	gitCommit = "unknown"
	buildDate = "unknown"
)

func newVersionCmd(g *globalOptions) *cobra.Command {
	o := output.NewFlags(output.FormatText, output.FormatJSON, output.FormatYAML)
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print mvpctl's version and the snapshot format it reads and writes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := o.Options(cmd.CommandPath())
			if err != nil {
				return err
			}
			ver, commit, date := buildVersion()
			profiles, err := profile.Versions()
			if err != nil {
				return err
			}
			v := buildinfo.NewVersion(ver, commit, date, snapshot.APIVersion, profiles)
			return output.Write(g.streams.Out, render.Version{Version: v}, opts)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
