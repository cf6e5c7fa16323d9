package route

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Result is an explanation's result: blocking when some server explained answers, or may
// answer (a random peer choice, a crash window), one of the statuses of failOn; else the
// result of the snapshot it was made from (partial when some server could not be read), or
// OK when oneServer (the one server asked about was evaluated).
func (e Explanation) Result(failOn []int, snap *snapshot.Snapshot, oneServer bool) report.Result {
	var hits []StatusHit
	for _, d := range e.Servers {
		if d.Status != nil && slices.Contains(failOn, *d.Status) {
			hits = append(hits, StatusHit{Server: d.Server, Status: *d.Status})
			continue
		}
		for _, alt := range d.AlsoAnswers {
			if code := alt.Status(); slices.Contains(failOn, code) {
				hits = append(hits, StatusHit{Server: d.Server, Status: code, Alternative: alt.Key()})
				break
			}
		}
	}
	switch {
	case len(hits) > 0:
		return report.Of(report.Blocking, AnswersFailOn{Hits: hits, FailOn: failOn})
	case oneServer:
		return report.Done()
	}
	return basis.OfSnapshot(snap).MadeResult()
}

// StatusHit is a server that answers a status, or may answer it (Alternative, as the
// decision's AlsoPossible names it, is then set).
type StatusHit struct {
	Server      string
	Status      int
	Alternative string
}

// AnswersFailOn are the servers that answer, or may answer, a status of --fail-on.
type AnswersFailOn struct {
	Hits   []StatusHit
	FailOn []int
}

func (r AnswersFailOn) String() string {
	hits := make([]string, len(r.Hits))
	for i, h := range r.Hits {
		hits[i] = fmt.Sprintf("%s answers %d", h.Server, h.Status)
		if h.Alternative != "" {
			hits[i] = fmt.Sprintf("%s may answer %d (%s)", h.Server, h.Status, h.Alternative)
		}
	}
	codes := make([]string, len(r.FailOn))
	for i, c := range r.FailOn {
		codes[i] = strconv.Itoa(c)
	}
	return fmt.Sprintf("%s (--fail-on %s)", strings.Join(hits, "; "), strings.Join(codes, ","))
}
