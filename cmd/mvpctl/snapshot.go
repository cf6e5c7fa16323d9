package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// snapshotOptions are `mvpctl snapshot`'s flags.
type snapshotOptions struct {
	file   string // destination; "" or "-" for stdout
	output *output.Flags
	live   cli.DiscoverFlags
	// evidence: a Prometheus whose kept request counters the snapshot records.
	evidence evidenceFlags
}

func newSnapshotCmd(g *globalOptions) *cobra.Command {
	o := &snapshotOptions{output: output.NewFlags(output.FormatYAML, output.FormatJSON)}
	cmd := &cobra.Command{
		Use:   "snapshot [-f FILE] [-o yaml|json]",
		Short: "Record what every apiserver of the live cluster serves by itself",
		Long: `Find every kube-apiserver of the cluster the kubeconfig points at and record, for each,
its version, what it serves by itself (its non-peer discovery), its peer-aggregated /apis, and
the evidence the routing rules need (readiness hooks, identity lease, CRD and APIService group
versions, StorageVersions on 1.28–1.32). The file feeds 'mvpctl routes --snapshot FILE'.

Apiservers are found from the identity leases in kube-system and dialled one by one at the
address each lease advertises, with the kubeconfig's credentials; add others with --endpoint,
or name one kubeconfig context per apiserver with --contexts. See docs/snapshot.md for the
format and the RBAC needed.

` + commandExitCodes("snapshot"),
		Example: `  # Snapshot the current context's control plane to a file
  mvpctl snapshot -f cluster.yaml

  # One context per apiserver, as JSON on stdout
  mvpctl snapshot --contexts cp-1,cp-2,cp-3 -o json

  # An apiserver the identity leases do not describe
  mvpctl snapshot --endpoint https://10.0.0.12:6443 --tls-server-name kubernetes.default.svc`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.file, "file", "f", "", "write the snapshot to FILE, atomically; only a regular file (or a link to one) is replaced (default: stdout)")
	o.output.AddFlags(fs)
	o.live.AddFlags(fs)
	o.evidence.addFlags(fs)
	return cmd
}

func (o *snapshotOptions) run(cmd *cobra.Command, g *globalOptions) error {
	opts, err := o.output.Options(cmd.CommandPath())
	if err != nil {
		return err
	}
	if err := o.live.Validate(); err != nil {
		return err
	}
	if o.file != "" && o.file != "-" {
		if err := snapshot.CheckWritable(o.file); err != nil {
			return fmt.Errorf("-f %s: %w", o.file, err)
		}
	}
	if err := o.evidence.validate(); err != nil {
		return err
	}
	snap, err := o.live.Discover(cmd.Context(), g.env())
	if err != nil {
		return err
	}
	if err := o.evidence.readPrometheus(cmd.Context(), snap, g.warn); err != nil {
		return err
	}
	if err := o.write(snap, opts, g); err != nil {
		return err
	}
	return snapshotResult(snap)
}

func (o *snapshotOptions) write(snap *snapshot.Snapshot, opts output.Options, g *globalOptions) error {
	if o.file == "" || o.file == "-" {
		return output.Write(g.streams.Out, render.Snapshot{Snapshot: snap}, opts)
	}
	if err := snap.WriteFile(o.file, opts.Format == output.FormatJSON); err != nil {
		return err
	}
	if !g.streams.ErrIsTerminal {
		return nil
	}
	output.Fprintf(g.streams.ErrOut, "[discovery] wrote %s (%d apiservers)\n", o.file, len(snap.Servers))
	// What an upgrade would keep: each server's --runtime-config as stated by its installer,
	// or inferred from what it serves (not stored: it is derived from the snapshot; `simulate`
	// and `explain` show it too).
	configs := simulate.RuntimeConfigs(snap)
	for _, s := range snap.Servers {
		if c, ok := configs[s.Name]; ok {
			output.Fprintf(g.streams.ErrOut, "[discovery] %s %s: runtime-config %s\n", s.Name, s.Version, c.Full())
		}
	}
	return nil
}
