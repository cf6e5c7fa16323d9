package simulate

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// keepStep changes nothing: a server a rolling upgrade leaves alone because it already runs
// the target version. With a newer patch release left out (Step.Patch), a note says so.
type keepStep struct{}

func (keepStep) keepsPlane() {}

func (keepStep) Execute(srv *snapshot.Server, step Step) (stepDone, error) {
	if step.Patch == "" {
		return stepDone{}, nil
	}
	return stepDone{notes: []stepNote{patchLeftOut{Server: step.Server, Version: srv.Version, Patch: step.Patch}}}, nil
}
