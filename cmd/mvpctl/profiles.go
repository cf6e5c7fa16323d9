package main

import (
	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/profile"
)

func newProfilesCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List, show and record the version profiles simulations start from",
		Long: `A profile is what a default kube-apiserver of one version serves by itself (its non-peer
discovery). mvpctl embeds profiles recorded from real apiservers by ` + "`make profiles`" + `; a newer
version needs no new binary: ` + "`mvpctl profiles record`" + ` captures a profile from a running
apiserver, into the profile directory (every *.json of $XDG_CONFIG_HOME/mvpctl/profiles,
default ~/.config/mvpctl/profiles, is loaded by every command) or a file given with
--profile FILE. A profile replaces those of its minor version from an earlier source:
--profile over the profile directory, the directory over the embedded profiles.`,
	}
	var listProfiles, showProfiles cli.ProfileFlags
	listOutput := cli.NarrowTableFlags(output.FormatJSON, output.FormatYAML)
	list := &cobra.Command{
		Use: "list", Short: "List the versions mvpctl has profiles for, and where each is loaded from", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := listOutput.Options(cmd.CommandPath())
			if err != nil {
				return err
			}
			if err := listProfiles.Use(g.warn); err != nil {
				return err
			}
			return writeProfileList(g, opts)
		},
	}
	listOutput.AddFlags(list.Flags())
	listProfiles.AddFlags(list.Flags())
	showOutput := cli.TableFlags(output.FormatJSON, output.FormatYAML)
	show := &cobra.Command{
		Use: "show [VERSION]", Short: "Show what a default kube-apiserver of VERSION serves", Args: cobra.MaximumNArgs(1),
		Long: "Show what a default kube-apiserver of VERSION serves. Without VERSION, list the versions\nthere are profiles for, as mvpctl profiles list does.",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := showOutput.Options(cmd.CommandPath())
			if err != nil {
				return err
			}
			if err := showProfiles.Use(g.warn); err != nil {
				return err
			}
			if len(args) == 0 { // as kubectl get without a name: what there is to show
				return writeProfileList(g, opts)
			}
			p, err := profile.Lookup(args[0])
			if err != nil {
				return err
			}
			if opts.Format == output.FormatTable || opts.Format == output.FormatWide { // for people only
				output.Fprintf(g.streams.ErrOut, "Profile %s (taken %s; %s; from %s)\n", p.Version, p.TakenAt, p.Source, p.From)
			}
			if err := output.Write(g.streams.Out, render.Profile{Profile: p}, opts); err != nil {
				return err
			}
			return provisionalProfileResult(p)
		},
	}
	showOutput.AddFlags(show.Flags())
	showProfiles.AddFlags(show.Flags())
	cmd.AddCommand(list, show, newProfilesRecordCmd(g))
	return cli.CommandGroup(cmd)
}

// writeProfileList prints the profiles loaded (profiles list, profiles show without VERSION).
func writeProfileList(g *globalOptions, opts output.Options) error {
	ps, err := profile.All()
	if err != nil {
		return err
	}
	return output.Write(g.streams.Out, render.ProfileList{List: profile.NewList(ps)}, opts)
}
