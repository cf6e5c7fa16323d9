package simulate

import (
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// WhatIf returns snap as it is right after steps, applied in order: for a question about one
// request ("what does a client get if kas-a crashes now?"). It is Apply step by step, except
// that a crash leaves the server as it is at the kill, its endpoint lease still alive (the
// first phase Run shows), so that an explanation's crash timeline starts there: the transport
// 503, the endpoint-resolution 503 once the key expires, the 404 once peers drop it.
func WhatIf(snap *snapshot.Snapshot, steps []Step) (*snapshot.Snapshot, error) {
	if err := checkStepCount(len(steps)); err != nil {
		return nil, err
	}
	cur := snap
	for _, st := range planSteps(steps) {
		next, done, err := applyPlanned(cur, st)
		if err != nil {
			return nil, err
		}
		if kill, ok := st.unit.(killer); ok {
			kill.killed(next.Find(done.server))
		}
		cur = next
	}
	return cur, nil
}
