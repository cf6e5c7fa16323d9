package profilerecord

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/report"
)

// Result is a recording's result: with warnings when something was not captured or the
// apiserver shows it is not at its defaults (each listed in the report).
func (r Report) Result() report.Result {
	if len(r.NotCaptured) == 0 && len(r.NotDefault) == 0 {
		return report.Done()
	}
	return report.Of(report.Warnings, Caveats{NotCaptured: len(r.NotCaptured), NotDefault: len(r.NotDefault)})
}

// Caveats count what a recorded profile lacks and the signs of a configuration other than
// the defaults.
type Caveats struct{ NotCaptured, NotDefault int }

func (c Caveats) String() string {
	return fmt.Sprintf("%d not captured, %d signs of a configuration other than the defaults (above)", c.NotCaptured, c.NotDefault)
}
