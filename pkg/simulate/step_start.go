package simulate

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// startStep starts a crashed or stopped server again.
type startStep struct{}

func (startStep) Execute(srv *snapshot.Server, _ Step) (stepDone, error) {
	start(srv)
	return stepDone{}, nil
}
