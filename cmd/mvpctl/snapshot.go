package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// snapshotOptions are `mvpctl snapshot`'s flags.
type snapshotOptions struct {
	file   string // destination; "" or "-" for stdout
	output string // yaml or json
	live   discoverFlags
}

func newSnapshotCmd(g *globalOptions) *cobra.Command {
	o := &snapshotOptions{}
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

Exit codes:
  0  every apiserver was read
  1  usage or input error, or nothing could be snapshotted
  2  partial: some apiserver could not be read; the snapshot is still written, with
     reachable: false and the error for that server, and a warning line on stderr`,
		Example: `  # Snapshot the current context's control plane to a file
  mvpctl snapshot -f cluster.yaml

  # One context per apiserver, as JSON on stdout
  mvpctl snapshot --contexts cp-1,cp-2,cp-3 -o json

  # An apiserver the identity leases do not describe
  mvpctl snapshot --endpoint https://10.0.0.12:6443 --tls-server-name kubernetes.default.svc`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), g) },
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.file, "file", "f", "", "write the snapshot to FILE, atomically (default: stdout)")
	fs.StringVarP(&o.output, "output", "o", "yaml", "output format: yaml or json")
	o.live.addFlags(fs)
	return cmd
}

func (o *snapshotOptions) run(ctx context.Context, g *globalOptions) error {
	var asJSON bool
	switch o.output {
	case "yaml", "yml":
	case "json":
		asJSON = true
	default:
		return withCode(ExitError, fmt.Errorf("--output %q: want yaml or json", o.output))
	}
	snap, err := o.live.discover(ctx, g)
	if err != nil {
		return err
	}
	if err := o.write(snap, asJSON, g); err != nil {
		return err
	}
	if snap.Partial() {
		unread := 0
		for i := range snap.Servers {
			if !snap.Servers[i].Reachable {
				unread++
			}
		}
		return withCode(ExitPartial, fmt.Errorf("partial result: %d of %d apiservers could not be read (recorded with reachable: false)", unread, len(snap.Servers)))
	}
	return nil
}

func (o *snapshotOptions) write(snap *snapshot.Snapshot, asJSON bool, g *globalOptions) error {
	if o.file == "" || o.file == "-" {
		data, err := snap.Marshal(asJSON)
		if err != nil {
			return err
		}
		_, err = g.streams.Out.Write(data)
		return err
	}
	if err := snap.WriteFile(o.file, asJSON); err != nil {
		return err
	}
	if !g.streams.ErrIsTerminal {
		return nil
	}
	fmt.Fprintf(g.streams.ErrOut, "[discovery] wrote %s (%d apiservers)\n", o.file, len(snap.Servers))
	// What an upgrade would keep: each server's --runtime-config as inferred from what it
	// serves (not stored: it is derived from the snapshot; `simulate` and `explain` show it too).
	configs := observedConfigs(snap)
	for _, s := range snap.Servers {
		if c, ok := configs[s.Name]; ok {
			fmt.Fprintf(g.streams.ErrOut, "[discovery] %s %s: runtime-config as observed: %s\n", s.Name, s.Version, c)
		}
	}
	return nil
}
