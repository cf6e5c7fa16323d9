package main

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/preflight"
)

// warnFiltered says on stderr how many findings --resource/--group left out of a preflight
// report (preflight.Report.Narrow: out of the findings, the summary and the verdict),
// so a filtered pass is never read as the whole upgrade passing.
func warnFiltered(g *globalOptions, rep *preflight.Report) {
	if rep.Filtered != nil {
		g.warn(fmt.Sprintf("only findings for %s (and those about no GVR) are reported: %d other finding(s) left out", rep.Filtered.Filter, rep.Filtered.Hidden))
	}
}
