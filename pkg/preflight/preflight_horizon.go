package preflight

import (
	"strings"

	"github.com/mvpctl/mvpctl/pkg/replay"
)

// covered says whether the evidence looks back far enough to show that no client uses a GVR:
// the replayed traffic spans the window (first to last event), or the client evidence does
// (replay.ClientEvidence.CoversWindow).
func (h harm) covered() bool {
	if span, ok := h.tr.TrafficSpan(); ok && h.tr != nil && span >= h.window {
		return true
	}
	return h.ev.CoversWindow(h.window)
}

// tooShort says why the evidence read cannot show "no client": how far back each source
// looked, the window it had to cover, and what would cover it.
func (h harm) tooShort() string {
	var read []string
	if h.tr != nil {
		read = append(read, "traffic "+h.tr.TrafficSpanText())
	}
	if spans := h.ev.SpansRead(); spans != "" {
		read = append(read, spans)
	}
	return "the evidence read looks back less than the " + replay.SpanText(h.window) + " evidence window (--evidence-window): " +
		strings.Join(read, "; ") + "; a client in the rest of the window would not show. " +
		"To cover it: --prometheus (its kept apiserver_request_total), an audit log that spans the window, or a shorter --evidence-window as a stated, accepted risk"
}
