package simulate

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// ActionRestart restarts a server at the same version with the same flags.
const ActionRestart = "restart"

// restartStep restarts a server at the same version with the same flags (a patch upgrade
// within a profile, a node reboot, a rolled static pod). From 1.35 the new process deletes
// its identity lease and creates it again with a new holder, so every peer rebuilds its
// peer-discovery cache; before 1.35 it renews the lease and keeps its holder, and no peer
// rebuilds (mvp.StartDeletesIdentityLease, docs/behaviour.md §11.4).
type restartStep struct{}

func (restartStep) Execute(srv *snapshot.Server, _ Step) (stepDone, error) {
	start(srv)
	return stepDone{}, nil
}
