package watch

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/report"
)

// Verdict is what a watch comes to: a 404/503 window blocks, and wins over a partial watch —
// some read got nothing (every server counted as down for it), some read's identity leases
// could not be listed (other apiservers not known), or some server was still down at the end,
// so its windows could not close.
func (r Result) Verdict() report.Result {
	s := r.Summary
	if len(s.Windows) > 0 {
		why := Windows{Count: len(s.Windows)}
		seen := map[string]bool{}
		for _, w := range s.Windows {
			if !seen[w.Server] {
				seen[w.Server] = true
				why.Servers = append(why.Servers, w.Server)
			}
		}
		return report.Of(report.Blocking, why)
	}
	if s.ReadsFailed == 0 && len(r.Down) == 0 && s.LeasesNotListed == 0 {
		return report.Done()
	}
	return report.Of(report.Partial, NoWindowBut{ReadsFailed: s.ReadsFailed, LeasesNotListed: s.LeasesNotListed, Reads: s.Snapshots, Down: r.Down})
}

// Windows counts the 404/503 windows a watch saw, and the servers they were on.
type Windows struct {
	Count   int
	Servers []string
}

func (r Windows) String() string {
	s := "s"
	if r.Count == 1 {
		s = ""
	}
	return fmt.Sprintf("%d window%s with 404/503 on %s", r.Count, s, strings.Join(r.Servers, ", "))
}

// NoWindowBut: no window was seen, but reads got nothing, or servers were down at the end.
type NoWindowBut struct {
	ReadsFailed, LeasesNotListed, Reads int
	Down                                []string
}

func (r NoWindowBut) String() string {
	var why []string
	if r.ReadsFailed > 0 {
		why = append(why, fmt.Sprintf("%d of %d reads got nothing", r.ReadsFailed, r.Reads))
	}
	if r.LeasesNotListed > 0 {
		why = append(why, fmt.Sprintf("%d of %d reads could not list the identity leases in kube-system (other apiservers, and any that are down, were not known)", r.LeasesNotListed, r.Reads))
	}
	if len(r.Down) > 0 {
		why = append(why, strings.Join(r.Down, ", ")+" still down at the end")
	}
	return "no 404/503 window seen, but " + strings.Join(why, "; ")
}
