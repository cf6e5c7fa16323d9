package main

import (
	"fmt"
	"runtime"

	"github.com/mvpctl/mvpctl/pkg/print"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/spf13/cobra"
)

// Set by the Makefile with -ldflags -X.
var (
	version   = "v0.0.0-dev"
	gitCommit = "unknown"
	buildDate = "unknown"
)

// VersionInfo is `mvpctl version -o json|yaml`.
type VersionInfo struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Client     struct {
		Version   string `json:"version"`
		GitCommit string `json:"gitCommit"`
		BuildDate string `json:"buildDate"`
		GoVersion string `json:"goVersion"`
		Platform  string `json:"platform"`
	} `json:"client"`
	// SnapshotFormat is the snapshot apiVersion this build reads and writes.
	SnapshotFormat string `json:"snapshotFormat"`
}

func newVersionCmd(g *globalOptions) *cobra.Command {
	output := "text"
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print mvpctl's version and the snapshot format it reads and writes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" {
				if err := print.CheckFormat(output, print.FormatJSON, print.FormatYAML); err != nil {
					return err
				}
			}
			var v VersionInfo
			v.APIVersion, v.Kind = snapshot.APIVersion, "Version"
			v.Client.Version, v.Client.GitCommit, v.Client.BuildDate = buildVersion()
			v.Client.GoVersion, v.Client.Platform = runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH
			v.SnapshotFormat = snapshot.APIVersion
			if output == "text" {
				_, err := fmt.Fprintf(g.streams.Out, "Client Version: %s (commit %s, built %s, %s)\nSnapshot Format: %s\n",
					v.Client.Version, v.Client.GitCommit, v.Client.BuildDate, v.Client.GoVersion, v.SnapshotFormat)
				return err
			}
			return print.Object(g.streams.Out, v, output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", output, "output format: text|json|yaml")
	return cmd
}
