package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// snapshotSource is where a command gets its Snapshot: a file given with --snapshot, or else a
// live discovery of the cluster the kubeconfig points at.
type snapshotSource struct {
	file string
	live discoverFlags
	// sendsRequests: the command sends requests to the servers of a --snapshot file too
	// (probe, traffic), so the connection flags apply to it.
	sendsRequests bool
}

// sendRequests says the command sends requests to the snapshot's servers, whatever the
// snapshot's source: a file does not spare it the cluster, and the connection flags apply.
func (s *snapshotSource) sendRequests() {
	s.sendsRequests = true
	s.live.instead = ""
}

func (s *snapshotSource) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.file, "snapshot", "", "read this snapshot file (YAML or JSON, - for stdin) instead of discovering the live cluster")
	s.live.addFlags(fs)
	s.live.instead = "pass --snapshot FILE"
}

// validate checks the flags together: with --snapshot, none that only a live read uses;
// without, the live read's bounds.
func (s *snapshotSource) validate() error {
	if s.file != "" {
		return s.refuseLiveFlags("--snapshot")
	}
	return s.live.validate()
}

// load returns the snapshot; a partial one (some server unreadable) is no error.
func (s *snapshotSource) load(ctx context.Context, g *globalOptions) (*snapshot.Snapshot, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	if s.file == "-" {
		snap, err := snapshot.Load(g.streams.In, "<stdin>")
		if err != nil {
			return nil, err
		}
		printLBNotes(g, snap)
		return snap, requireReachable(snap, snapshotFileHint)
	}
	if s.file != "" {
		snap, err := snapshot.LoadFile(s.file)
		if err != nil {
			return nil, err
		}
		printLBNotes(g, snap)
		return snap, requireReachable(snap, snapshotFileHint)
	}
	snap, err := s.live.discover(ctx, g)
	if err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, errors.New("no snapshot")
	}
	return snap, nil
}

// refuseLiveFlags refuses, rather than ignores, the flags only a live read uses — the
// discovery flags (--endpoint, --contexts, ...), and the connection flags (--server,
// --context, ...) unless the command sends requests to the servers anyway — when the servers
// come from elsewhere (from: --snapshot, --servers).
func (s *snapshotSource) refuseLiveFlags(from string) error {
	set := s.live.setFlags()
	if !s.sendsRequests {
		set = append(set, kubeflags.SetConnectionFlags(s.live.fs)...)
	}
	switch len(set) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s cannot be used with %s: it applies to a read of the live cluster, and none is made (drop %s to read the live cluster)", set[0], from, from)
	}
	return fmt.Errorf("%s cannot be used with %s: they apply to a read of the live cluster, and none is made (drop %s to read the live cluster)", strings.Join(set, ", "), from, from)
}

// refuseLB refuses a snapshot sampled through a load balancer for a command that must reach
// each apiserver by itself: through the balancer a request reaches whichever apiserver it
// picks, so what is observed could not be attributed to a server.
func refuseLB(snap *snapshot.Snapshot, what string) error {
	if snap.Cluster.LB == nil {
		return nil
	}
	return fmt.Errorf("%s, but this snapshot was sampled through the load balancer %s: take one by dialling the apiservers (identity leases, --endpoint or --contexts)", what, snap.Cluster.LB.Address)
}

// requireReachable fails when no server of the snapshot could be read: there is nothing to
// route, and an empty table would read as "all clear".
// snapshotFileHint is requireReachable's hint for a snapshot file in which nothing was read.
const snapshotFileHint = "the snapshot holds no evidence to work from; take a new one"

// liveHint is requireReachable's hint for a live read that got nothing; instead is what else
// the command can read (discoverFlags.instead).
func liveHint(instead string) string {
	return orInstead("check --kubeconfig/--context and the address", instead)
}

// orInstead is a hint, followed by what else the command can read, if anything.
func orInstead(hint, instead string) string {
	if instead == "" {
		return hint
	}
	return hint + ", or " + instead
}

func requireReachable(snap *snapshot.Snapshot, hint string) error {
	for _, s := range snap.Servers {
		if s.Reachable {
			return nil
		}
	}
	first := ""
	if len(snap.Servers) > 0 {
		first = fmt.Sprintf(" (%s: %s)", snap.Servers[0].Name, snap.Servers[0].Error)
	}
	return fmt.Errorf("no apiserver could be read%s: %s", first, hint)
}

// requireKubeconfig refuses a live discovery with no kubeconfig at all: client-go would fall
// back to http://localhost:8080 and every line after would only repeat that nothing is there.
// In a pod, the in-cluster config counts as a kubeconfig. instead is what else the command
// can read ("pass --snapshot FILE"), "" when it needs a cluster whatever its flags: the error
// names only flags the command has.
func requireKubeconfig(g *globalOptions, instead string) error {
	cf := g.configFlags
	if cf.ServerOverride() != "" {
		return nil
	}
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return nil
	}
	raw, err := cf.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil // a broken kubeconfig: client-go's own error says what is wrong with it
	}
	if len(raw.Clusters) == 0 {
		return errors.New("no kubeconfig: none at --kubeconfig, $KUBECONFIG or ~/.kube/config, and no --server — " + orInstead("point at one", instead))
	}
	return nil
}

// loadWithOutput is how a command that prints a result from a snapshot starts: its output
// options first (a bad -o fails before any request is sent), then the snapshot.
func (s *snapshotSource) loadWithOutput(cmd *cobra.Command, g *globalOptions, out *output.Flags) (output.Options, *snapshot.Snapshot, error) {
	opts, err := out.Options(cmd.CommandPath())
	if err != nil {
		return opts, nil, err
	}
	snap, err := s.load(cmd.Context(), g)
	return opts, snap, err
}

// addAPIServerFlag adds --apiserver, which selects one server of the snapshot (what is the
// verb's object: "explain for", "this").
func addAPIServerFlag(fs *pflag.FlagSet, p *string, what string) {
	fs.StringVar(p, "apiserver", "", what+" apiserver only: its name in the snapshot or its identity lease name (--server is kubectl's connection flag)")
}
