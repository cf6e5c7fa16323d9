package simulate

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// stopStep is a SIGTERM: the identity lease is deleted on 1.35+.
type stopStep struct{}

func (stopStep) Execute(srv *snapshot.Server, _ Step) (stepDone, error) {
	stop(srv, "stopped (simulated SIGTERM)")
	return stepDone{}, nil
}
