package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/profilerecord"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// profilesRecordOptions are `mvpctl profiles record`'s flags; the apiserver is the one the
// connection flags (--kubeconfig, --context, --server, ...) point at, or --endpoint.
type profilesRecordOptions struct {
	file            string // destination; "" or "-" for stdout
	endpoint        string
	allAPIsEndpoint string
	timeout         time.Duration
	output          *output.Flags
}

func newProfilesRecordCmd(g *globalOptions) *cobra.Command {
	o := &profilesRecordOptions{output: output.NewFlags(output.FormatJSON, output.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "record [-f FILE]",
		Short: "Record the version profile of a running kube-apiserver, for a version mvpctl does not embed",
		Long: `Read one running kube-apiserver — the one the kubeconfig's current context (or --context,
--server, --endpoint) points at — and write its version profile, the file ` + "`make profiles`" + `
writes: what it serves by itself, and the default of UnknownVersionInteroperabilityProxy.
Written into the profile directory ($XDG_CONFIG_HOME/mvpctl/profiles, default
~/.config/mvpctl/profiles) as a .json file, every command loads it; elsewhere, pass it with
--profile FILE.

A profile describes a version's defaults: record an apiserver started without
--runtime-config or --feature-gates. What shows otherwise (alpha or beta APIs served, feature
gates off their default, read from /metrics) is reported and written into the profile's
source. What could not be captured is reported too: without --api-all-endpoint (an apiserver
of the same version started with --runtime-config=api/all=true) the profile has no full set,
and servers of the version with a --runtime-config cannot be simulated. Needs get on the
discovery paths, /readyz and /metrics (deploy/rbac).

` + commandExitCodes("profiles record"),
		Example: `  # The apiserver of a test cluster running the new release, into the profile directory
  mvpctl profiles record --context kind-v138 -f ~/.config/mvpctl/profiles/v1.38.0.json

  # One apiserver of an HA control plane, and one of the same version with api/all=true
  mvpctl profiles record --endpoint https://10.0.0.11:6443 --api-all-endpoint https://10.0.9.1:6443 -f v1.38.0.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.file, "file", "f", "", "write the profile to FILE, atomically, creating its directory (default: stdout)")
	fs.StringVar(&o.endpoint, "endpoint", "", "the apiserver to record, with the kubeconfig's credentials (default: the kubeconfig's server)")
	fs.StringVar(&o.allAPIsEndpoint, "api-all-endpoint", "", "also record the apiserver at this URL, of the same version and started with --runtime-config=api/all=true: the profile's full set")
	fs.DurationVar(&o.timeout, "timeout", discover.DefaultTimeout, "time allowed for all requests to one apiserver")
	o.output.AddFlags(fs)
	return cmd
}

// validate checks the flags before the apiserver is read.
func (o *profilesRecordOptions) validate() error {
	if o.timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, got %s", o.timeout)
	}
	if o.file != "" && o.file != "-" {
		if err := snapshot.CheckWritable(o.file); err != nil {
			return fmt.Errorf("-f %s: %w", o.file, err)
		}
	}
	return nil
}

func (o *profilesRecordOptions) run(cmd *cobra.Command, g *globalOptions) error {
	opts, err := o.output.Options(cmd.CommandPath())
	if err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	if err := cli.RequireKubeconfig(g.configFlags, ""); err != nil {
		return err
	}
	if cfg, err := g.configFlags.ToRESTConfig(); err == nil {
		g.warnLoweredTrust(cfg)
	}
	observe := func(endpoint string) (profilerecord.Observation, error) {
		dopts := discover.Options{RESTClientGetter: g.configFlags, Timeout: o.timeout, Warn: g.warn}
		if endpoint != "" {
			dopts.Endpoints = []string{endpoint}
		}
		return profilerecord.Observe(cmd.Context(), dopts)
	}
	def, err := observe(o.endpoint)
	if err != nil {
		return err
	}
	source := fmt.Sprintf("kube-apiserver %s at %s, recorded by mvpctl profiles record", def.Version, def.Endpoint)
	var all *profilerecord.Observation
	if o.allAPIsEndpoint != "" {
		a, err := observe(o.allAPIsEndpoint)
		if err != nil {
			return fmt.Errorf("--api-all-endpoint: %w", err)
		}
		all = &a
		source += fmt.Sprintf("; %q at %s, started with --runtime-config=api/all=true", profile.ServerAllAPIs, a.Endpoint)
	}
	rep, err := profilerecord.Build(def, all, source)
	if err != nil {
		return err
	}
	for _, n := range rep.Notes {
		output.Fprintf(g.streams.ErrOut, "note: %s\n", n)
	}
	for _, s := range rep.NotDefault {
		g.warn("not the defaults: " + s)
	}
	for _, s := range rep.NotCaptured {
		g.warn("not captured: " + s)
	}
	if err := o.write(rep, opts, g); err != nil {
		return err
	}
	return profileRecordResult(rep)
}

// write prints the profile, or writes it to --file; a file written into the profile directory
// must leave the directory loadable (two files of one version are refused when it is read).
func (o *profilesRecordOptions) write(rep profilerecord.Report, opts output.Options, g *globalOptions) error {
	if o.file == "" || o.file == "-" {
		return output.Write(g.streams.Out, render.Snapshot{Snapshot: rep.Profile}, opts)
	}
	if err := os.MkdirAll(filepath.Dir(o.file), 0o755); err != nil {
		return fmt.Errorf("profile %s: %w", o.file, err)
	}
	data, err := rep.Profile.Marshal(opts.Format == output.FormatJSON)
	if err == nil {
		err = snapshot.WriteAtomic(o.file, data, ".mvpctl-profile-*")
	}
	if err != nil {
		return fmt.Errorf("profile %s: %w", o.file, err)
	}
	srv := rep.Profile.Servers[0]
	output.Fprintf(g.streams.ErrOut, "wrote %s: the profile of %s (%d resources)\n", o.file, srv.Version, len(srv.Resources))
	if dir, _ := cli.ProfileDir(); dir != "" && sameDir(filepath.Dir(o.file), dir) {
		if _, err := profile.Use(cli.ProfileSources(nil)); err != nil {
			return fmt.Errorf("wrote %s, but the profile directory does not load now: %w", o.file, err)
		}
	}
	return nil
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
