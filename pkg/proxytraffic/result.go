package proxytraffic

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/report"
)

// Result is a traffic report's result: nothing to show (report.Usage) when no server's
// counters could be read — an empty table would read as "nothing was proxied" —; partial when
// some server's could not be, or the interval was cut short.
func (r *Report) Result() report.Result {
	var unread []string
	for _, s := range r.Servers {
		if !s.Read {
			unread = append(unread, s.Name)
		}
	}
	switch {
	case len(unread) == len(r.Servers):
		why := NoneRead{}
		if len(r.Servers) > 0 {
			why.First, why.Note = r.Servers[0].Name, r.Servers[0].Note
		}
		return report.Of(report.Usage, why)
	case len(unread) > 0:
		return report.Of(report.Partial, CountersNotRead{Servers: unread})
	case r.Interrupted != "":
		return report.Of(report.Partial, CutShort{Why: r.Interrupted})
	}
	return report.Done()
}

// NoneRead: no server's counters could be read; First is the first server, Note why not.
type NoneRead struct{ First, Note string }

func (r NoneRead) String() string {
	if r.First == "" {
		return "no apiserver's counters could be read"
	}
	return fmt.Sprintf("no apiserver's counters could be read (%s: %s)", r.First, r.Note)
}

// CountersNotRead are the servers whose counters could not be read.
type CountersNotRead struct{ Servers []string }

func (r CountersNotRead) String() string {
	return "the counters of " + strings.Join(r.Servers, ", ") + " could not be read"
}

// CutShort: the interval ended early, and why.
type CutShort struct{ Why string }

func (r CutShort) String() string { return r.Why }
