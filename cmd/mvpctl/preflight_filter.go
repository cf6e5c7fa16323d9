package main

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// narrowPreflight applies --resource/--group to a preflight report: findings about other
// GVRs are left out of the findings and the summary (and so of the exit code), and a warning
// on stderr says how many, so a filtered pass is never read as the whole upgrade passing.
func narrowPreflight(g *globalOptions, rep *simulate.PreflightReport, f snapshot.GVRFilter, start *snapshot.Snapshot) {
	rep.Narrow(f, start.Kinds())
	if rep.Filtered != nil {
		g.warn(fmt.Sprintf("only findings for %s (and those about no GVR) are reported: %d other finding(s) left out", rep.Filtered.Filter, rep.Filtered.Hidden))
	}
}
