package simulate

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// crashStep is a SIGKILL: the identity lease is kept. Execute gives the steady state after
// the kill, the endpoint-resolution 503; Run also shows the first mvp.EndpointLeaseTTL, the
// transport 503 (killed).
type crashStep struct{}

const crashedWhy = "crashed (simulated SIGKILL)"

func (crashStep) Execute(srv *snapshot.Server, _ Step) (stepDone, error) {
	Crash(srv, crashedWhy, false)
	return stepDone{}, nil
}

func (crashStep) killed(srv *snapshot.Server) { Crash(srv, crashedWhy, true) }
