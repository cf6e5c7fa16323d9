package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/pkg/output"
)

func newDiscoveryCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "discovery",
		Short: "Predict and check each apiserver's peer-aggregated discovery (/apis, 1.35+)",
		Long: `From 1.35, a kube-apiserver with the Mixed Version Proxy built answers /apis with the merge
of its own discovery and its peers': clients that rely on discovery (garbage collector,
namespace deletion, kubectl) see every resource of the control plane through any server.

'discovery expected' predicts that document for each server from a snapshot, with the
apiserver's own merge code; 'discovery diff' compares it with what each server served when
the snapshot was taken and finds stale entries (advertised, but nothing serves them) and
missing ones (served, but not advertised). See docs/discovery.md.`,
	}
	cmd.AddCommand(newDiscoveryExpectedCmd(g), newDiscoveryDiffCmd(g))
	return cli.CommandGroup(cmd)
}

// discoveryQuery is what both discovery commands take: a snapshot, optionally one server of
// it, and an output format.
type discoveryQuery struct {
	source cli.SnapshotSource
	server string
	output *output.Flags
}

func newDiscoveryQuery(out *output.Flags) discoveryQuery { return discoveryQuery{output: out} }

func (q *discoveryQuery) addFlags(fs *pflag.FlagSet) {
	q.source.AddFlags(fs)
	cli.AddAPIServerFlag(fs, &q.server, "this")
	q.output.AddFlags(fs)
}
