package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/spf13/pflag"
)

// snapshotSource is where a command gets its Snapshot: a file given with --snapshot, or else a
// live discovery of the cluster the kubeconfig points at.
type snapshotSource struct {
	file string
	live discoverFlags
}

func (s *snapshotSource) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.file, "snapshot", "", "read this snapshot file (YAML or JSON, - for stdin) instead of discovering the live cluster")
	s.live.addFlags(fs)
}

// load returns the snapshot; a partial one (some server unreadable) is no error.
func (s *snapshotSource) load(ctx context.Context, g *globalOptions) (*snapshot.Snapshot, error) {
	if s.file == "-" {
		return snapshot.Load(g.streams.In, "<stdin>")
	}
	if s.file != "" {
		return snapshot.LoadFile(s.file)
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

// requireReachable fails when no server of the snapshot could be read: there is nothing to
// route, and an empty table would read as "all clear".
func requireReachable(snap *snapshot.Snapshot) error {
	for _, s := range snap.Servers {
		if s.Reachable {
			return nil
		}
	}
	first := ""
	if len(snap.Servers) > 0 {
		first = fmt.Sprintf(" (%s: %s)", snap.Servers[0].Name, snap.Servers[0].Error)
	}
	hint := "check --kubeconfig/--context, or pass --snapshot FILE"
	if strings.Contains(first, "localhost:8080") {
		hint = "no kubeconfig was found: set --kubeconfig, KUBECONFIG or --server, or pass --snapshot FILE"
	}
	return fmt.Errorf("no apiserver could be read%s: %s", first, hint)
}
