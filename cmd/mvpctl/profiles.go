package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
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
			if err := output.Write(g.streams.Out, profileWriter{p}, opts); err != nil {
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
	return output.Write(g.streams.Out, profileListWriter{profile.NewList(ps)}, opts)
}

// profileListWriter prints the list of profiles in use.
type profileListWriter struct{ list profile.List }

func (w profileListWriter) Object() any { return w.list }

// WriteText prints the table with each source's common part — how the profiles were
// recorded, the same sentence for most — once, as a numbered note under it (-o csv and json
// keep every source whole).
func (w profileListWriter) WriteText(out io.Writer, o output.Options) error {
	headers, rows := w.Table(o)
	var notes []string
	for i, p := range w.list.Items {
		head, how, ok := strings.Cut(p.Source, ": ")
		if !ok {
			continue
		}
		n := slices.Index(notes, how)
		if n < 0 {
			notes = append(notes, how)
			n = len(notes) - 1
		}
		rows[i][len(rows[i])-1] = fmt.Sprintf("%s [%d]", head, n+1)
	}
	if err := output.Table(out, headers, rows, o.NoHeaders); err != nil {
		return err
	}
	for i, how := range notes {
		fmt.Fprintf(out, "[%d] %s\n", i+1, how)
	}
	return nil
}

// Table is a row per profile; it has no wide columns.
func (w profileListWriter) Table(output.Options) ([]string, [][]string) {
	rows := [][]string{}
	for _, p := range w.list.Items {
		rows = append(rows, []string{p.Version, fmt.Sprint(p.Resources), p.TakenAt, p.From, p.Source})
	}
	return []string{"VERSION", "RESOURCES", "TAKEN", "FROM", "SOURCE"}, rows
}

// Names are the profiles' versions, what profiles show and --to take.
func (w profileListWriter) Names() []string {
	names := make([]string, len(w.list.Items))
	for i, p := range w.list.Items {
		names[i] = p.Version
	}
	return names
}

// profileWriter prints one profile: its resources, or, structured, a snapshot of its one
// server (which --snapshot reads).
type profileWriter struct{ p profile.Profile }

func (w profileWriter) Object() any {
	s := snapshot.New()
	s.Source = w.p.Source
	s.Servers = []snapshot.Server{w.p.Server}
	return s
}

func (w profileWriter) WriteText(out io.Writer, o output.Options) error {
	headers, rows := w.Table(o)
	return output.Table(out, headers, rows, o.NoHeaders)
}

// Table is a row per resource; wide adds its subresources (status, scale, ...).
func (w profileWriter) Table(o output.Options) ([]string, [][]string) {
	headers := []string{"NAME", "KIND", "SCOPE", "VERBS"}
	if o.Wide() {
		headers = append(headers, "SUBRESOURCES")
	}
	rows := [][]string{}
	for _, r := range w.p.Resources {
		scope := "Cluster"
		if r.Namespaced {
			scope = "Namespaced"
		}
		row := []string{r.GVR().String(), r.Kind, scope, strings.Join(r.Verbs, ",")}
		if o.Wide() {
			row = append(row, strings.Join(r.Subresources, ","))
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// Names are the profile's GVRs.
func (w profileWriter) Names() []string {
	names := make([]string, len(w.p.Resources))
	for i, r := range w.p.Resources {
		names[i] = r.GVR().String()
	}
	return names
}
