package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// SnapshotSource is where a command gets its Snapshot: a file given with --snapshot, or else a
// live discovery of the cluster the kubeconfig points at.
type SnapshotSource struct {
	File string
	Live DiscoverFlags
	// sendsRequests: the command sends requests to the servers of a --snapshot file too
	// (probe, traffic), so the connection flags apply to it.
	sendsRequests bool
}

// SendRequests says the command sends requests to the snapshot's servers, whatever the
// snapshot's source: a file does not spare it the cluster, and the connection flags apply.
func (s *SnapshotSource) SendRequests() {
	s.sendsRequests = true
	s.Live.Instead = ""
}

// AddFlags adds --snapshot and the flags of a live read.
func (s *SnapshotSource) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.File, "snapshot", "", "read this snapshot file (YAML or JSON, - for stdin) instead of discovering the live cluster")
	s.Live.AddFlags(fs)
	s.Live.Instead = "pass --snapshot FILE"
}

// Validate checks the flags together: with --snapshot, none that only a live read uses;
// without, the live read's bounds.
func (s *SnapshotSource) Validate() error {
	if s.File != "" {
		return s.RefuseLiveFlags("--snapshot")
	}
	return s.Live.Validate()
}

// Load returns the snapshot; a partial one (some server unreadable) is no error.
func (s *SnapshotSource) Load(ctx context.Context, env Env) (*snapshot.Snapshot, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.File == "-" {
		snap, err := snapshot.Load(env.In, "<stdin>")
		if err != nil {
			return nil, err
		}
		PrintLBNotes(env.Warn, snap)
		PrintLeasesNote(env.Warn, snap)
		return snap, RequireReachable(snap, snapshotFileHint)
	}
	if s.File != "" {
		snap, err := snapshot.LoadFile(s.File)
		if err != nil {
			return nil, err
		}
		PrintLBNotes(env.Warn, snap)
		PrintLeasesNote(env.Warn, snap)
		return snap, RequireReachable(snap, snapshotFileHint)
	}
	snap, err := s.Live.Discover(ctx, env)
	if err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, errors.New("no snapshot")
	}
	return snap, nil
}

// RefuseLiveFlags refuses, rather than ignores, the flags only a live read uses — the
// discovery flags (--endpoint, --contexts, ...), and the connection flags (--server,
// --context, ...) unless the command sends requests to the servers anyway — when the servers
// come from elsewhere (from: --snapshot, --servers).
func (s *SnapshotSource) RefuseLiveFlags(from string) error {
	set := s.Live.SetFlags()
	if !s.sendsRequests {
		set = append(set, kubeflags.SetConnectionFlags(s.Live.fs)...)
	}
	switch len(set) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s cannot be used with %s: it applies to a read of the live cluster, and none is made (drop %s to read the live cluster)", set[0], from, from)
	}
	return fmt.Errorf("%s cannot be used with %s: they apply to a read of the live cluster, and none is made (drop %s to read the live cluster)", strings.Join(set, ", "), from, from)
}

// RefuseLB refuses a snapshot sampled through a load balancer for a command that must reach
// each apiserver by itself: through the balancer a request reaches whichever apiserver it
// picks, so what is observed could not be attributed to a server.
func RefuseLB(snap *snapshot.Snapshot, what string) error {
	if snap.Cluster.LB == nil {
		return nil
	}
	return fmt.Errorf("%s, but this snapshot was sampled through the load balancer %s: take one by dialling the apiservers (identity leases, --endpoint or --contexts)", what, snap.Cluster.LB.Address)
}

// RequireReachable fails when no server of the snapshot could be read: there is nothing to
// route, and an empty table would read as "all clear".
// snapshotFileHint is RequireReachable's hint for a snapshot file in which nothing was read.
const snapshotFileHint = "the snapshot holds no evidence to work from; take a new one"

// liveHint is RequireReachable's hint for a live read that got nothing; instead is what else
// the command can read (DiscoverFlags.Instead).
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

func RequireReachable(snap *snapshot.Snapshot, hint string) error {
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

// RequireKubeconfig refuses a live discovery with no kubeconfig at all: client-go would fall
// back to http://localhost:8080 and every line after would only repeat that nothing is there.
// In a pod, the in-cluster config counts as a kubeconfig. instead is what else the command
// can read ("pass --snapshot FILE"), "" when it needs a cluster whatever its flags: the error
// names only flags the command has.
func RequireKubeconfig(cf *kubeflags.Flags, instead string) error {
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

// LoadWithOutput is how a command that prints a result from a snapshot starts: its output
// options first (a bad -o fails before any request is sent), then the snapshot.
func (s *SnapshotSource) LoadWithOutput(cmd *cobra.Command, env Env, out *output.Flags) (output.Options, *snapshot.Snapshot, error) {
	opts, err := out.Options(cmd.CommandPath())
	if err != nil {
		return opts, nil, err
	}
	snap, err := s.Load(cmd.Context(), env)
	return opts, snap, err
}

// AddAPIServerFlag adds --apiserver, which selects one server of the snapshot (what is the
// verb's object: "explain for", "this").
func AddAPIServerFlag(fs *pflag.FlagSet, p *string, what string) {
	fs.StringVar(p, "apiserver", "", what+" apiserver only: its name in the snapshot or its identity lease name (--server is kubectl's connection flag)")
}
