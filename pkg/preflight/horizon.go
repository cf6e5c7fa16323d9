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
	failed, advice := h.promAdvice()
	return "the evidence read looks back less than the " + replay.SpanText(h.window) + " evidence window (--evidence-window): " +
		strings.Join(read, "; ") + "; a client in the rest of the window would not show. " + failed +
		"To cover it: " + advice + ", an audit log that spans the window, or a shorter --evidence-window as a stated, accepted risk"
}

// promAdvice says what Prometheus would add: --prometheus when none was given; when one was
// given and its read failed, that it failed and why (a sentence of its own) and a read that
// succeeds; when it was read, one that keeps the window.
func (h harm) promAdvice() (failed, advice string) {
	var short []string
	for _, s := range h.ev.SourcesOf(replay.SourcePrometheus) {
		if !s.Read {
			failed += "Prometheus " + s.Name + " was not read: " + s.Error + ". "
		} else {
			short = append(short, s.Name)
		}
	}
	switch {
	case failed != "":
		return failed, "a --prometheus read that succeeds"
	case len(short) > 0:
		return "", "a Prometheus (or Thanos, Mimir) that keeps apiserver_request_total over the window (" + strings.Join(short, ", ") + " holds less)"
	}
	return "", "--prometheus (its kept apiserver_request_total)"
}
