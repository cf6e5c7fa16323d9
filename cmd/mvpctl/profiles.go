package main

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/print"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/spf13/cobra"
)

func newProfilesCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List and show the embedded version profiles simulations start from",
		Long: `A profile is what a default kube-apiserver of one version serves by itself (its non-peer
discovery), recorded from a real apiserver by ` + "`make profiles`" + ` and embedded in mvpctl.`,
	}
	output := print.FormatTable
	list := &cobra.Command{
		Use: "list", Short: "List the versions mvpctl has profiles for", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := print.CheckFormat(output, print.FormatTable, print.FormatJSON, print.FormatYAML); err != nil {
				return err
			}
			ps, err := simulate.Profiles()
			if err != nil {
				return err
			}
			list := simulate.NewProfileList(ps)
			var rows [][]string
			for _, p := range list.Items {
				rows = append(rows, []string{p.Version, fmt.Sprint(p.Resources), p.TakenAt, p.Source})
			}
			if print.Structured(output) {
				return print.Object(g.streams.Out, list, output)
			}
			return print.Table(g.streams.Out, []string{"VERSION", "RESOURCES", "TAKEN", "SOURCE"}, rows, false)
		},
	}
	list.Flags().StringVarP(&output, "output", "o", output, "output format: table|json|yaml")
	showOutput := print.FormatTable
	show := &cobra.Command{
		Use: "show VERSION", Short: "Show what a default kube-apiserver of VERSION serves", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := print.CheckFormat(showOutput, print.FormatTable, print.FormatJSON, print.FormatYAML); err != nil {
				return err
			}
			p, err := simulate.LookupProfile(args[0])
			if err != nil {
				return err
			}
			if print.Structured(showOutput) {
				s := snapshot.New()
				s.Source = p.Source
				s.Servers = []snapshot.Server{p.Server}
				return print.Object(g.streams.Out, s, showOutput)
			}
			fmt.Fprintf(g.streams.ErrOut, "Profile %s (taken %s; %s)\n", p.Version, p.TakenAt, p.Source)
			var rows [][]string
			for _, r := range p.Resources {
				scope := "Cluster"
				if r.Namespaced {
					scope = "Namespaced"
				}
				rows = append(rows, []string{r.GVR().String(), r.Kind, scope, strings.Join(r.Verbs, ",")})
			}
			return print.Table(g.streams.Out, []string{"NAME", "KIND", "SCOPE", "VERBS"}, rows, false)
		},
	}
	show.Flags().StringVarP(&showOutput, "output", "o", showOutput, "output format: table|json|yaml")
	cmd.AddCommand(list, show)
	return cmd
}
