package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func newProfilesCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List and show the embedded version profiles simulations start from",
		Long: `A profile is what a default kube-apiserver of one version serves by itself (its non-peer
discovery), recorded from a real apiserver by ` + "`make profiles`" + ` and embedded in mvpctl.`,
	}
	listOutput := output.NewFlags(output.FormatTable, output.FormatJSON, output.FormatYAML)
	list := &cobra.Command{
		Use: "list", Short: "List the versions mvpctl has profiles for", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := listOutput.Options(cmd.CommandPath())
			if err != nil {
				return err
			}
			ps, err := simulate.Profiles()
			if err != nil {
				return err
			}
			return output.Write(g.streams.Out, profileListWriter{simulate.NewProfileList(ps)}, opts)
		},
	}
	listOutput.AddFlags(list.Flags())
	showOutput := output.NewFlags(output.FormatTable, output.FormatJSON, output.FormatYAML)
	show := &cobra.Command{
		Use: "show VERSION", Short: "Show what a default kube-apiserver of VERSION serves", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := showOutput.Options(cmd.CommandPath())
			if err != nil {
				return err
			}
			p, err := simulate.LookupProfile(args[0])
			if err != nil {
				return err
			}
			if !opts.Format.Structured() {
				fmt.Fprintf(g.streams.ErrOut, "Profile %s (taken %s; %s)\n", p.Version, p.TakenAt, p.Source)
			}
			return output.Write(g.streams.Out, profileWriter{p}, opts)
		},
	}
	showOutput.AddFlags(show.Flags())
	cmd.AddCommand(list, show)
	return commandGroup(cmd)
}

// profileListWriter prints the list of embedded profiles.
type profileListWriter struct{ list simulate.ProfileList }

func (w profileListWriter) Object() any { return w.list }

func (w profileListWriter) WriteText(out io.Writer, o output.Options) error {
	var rows [][]string
	for _, p := range w.list.Items {
		rows = append(rows, []string{p.Version, fmt.Sprint(p.Resources), p.TakenAt, p.Source})
	}
	return output.Table(out, []string{"VERSION", "RESOURCES", "TAKEN", "SOURCE"}, rows, o.NoHeaders)
}

// profileWriter prints one profile: its resources, or, structured, a snapshot of its one
// server (which --snapshot reads).
type profileWriter struct{ p simulate.Profile }

func (w profileWriter) Object() any {
	s := snapshot.New()
	s.Source = w.p.Source
	s.Servers = []snapshot.Server{w.p.Server}
	return s
}

func (w profileWriter) WriteText(out io.Writer, o output.Options) error {
	var rows [][]string
	for _, r := range w.p.Resources {
		scope := "Cluster"
		if r.Namespaced {
			scope = "Namespaced"
		}
		rows = append(rows, []string{r.GVR().String(), r.Kind, scope, strings.Join(r.Verbs, ",")})
	}
	return output.Table(out, []string{"NAME", "KIND", "SCOPE", "VERBS"}, rows, o.NoHeaders)
}
