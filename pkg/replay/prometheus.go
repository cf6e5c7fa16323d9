package replay

import (
	"fmt"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// PrometheusEvidence is the client evidence of what a Prometheus kept of the apiservers'
// request counters (snapshot.PrometheusEvidence): one source covering every GVR from its
// oldest sample to the read, and per GVR a client for each instance that counted requests of
// it, and for each deprecated API some apiserver reported being asked for. Nil: none.
func PrometheusEvidence(pe *snapshot.PrometheusEvidence) ClientEvidence {
	ev := ClientEvidence{Clients: map[string][]Client{}}
	if pe == nil {
		return ev
	}
	src := EvidenceSource{Kind: SourcePrometheus, Name: pe.URL, AllGVRs: true, Error: pe.Error}
	if pe.Selector != "" {
		src.Name += " {" + pe.Selector + "}"
	}
	byKey, order, err := promCounts(pe)
	switch {
	case pe.Error != "":
	case err != nil:
		src.Error = err.Error()
	default:
		src.Read = true
		to := pe.ReadAt
		src.From, src.To = pe.OldestSample, &to
	}
	ev.Sources = append(ev.Sources, src)
	if !src.Read {
		return ev
	}
	span, _ := pe.Span()
	for _, k := range order {
		name := "instance " + k[1]
		if k[1] == "" {
			name = "the apiservers"
		}
		ev.Clients[k[0]] = append(ev.Clients[k[0]], Client{Kind: SourcePrometheus, Name: name, Requests: byKey[k], Span: span})
	}
	for _, d := range pe.Deprecated {
		name := fmt.Sprintf("%s: asked for in the last %s", DeprecatedAPIsName, SpanText(span))
		if d.RemovedRelease != "" {
			name += ", removed in " + d.RemovedRelease
		}
		ev.Clients[d.GVR().String()] = append(ev.Clients[d.GVR().String()], Client{Kind: SourcePrometheus, Name: name})
	}
	return ev
}

// DeprecatedAPIsName is the metric of deprecated APIs asked for, as a client's name says it.
const DeprecatedAPIsName = "apiserver_requested_deprecated_apis"

// promCounts sums a Prometheus read's counts by GVR and instance, in the order first seen, or
// says why they are not counts (a negative one, a sum that overflows, an oldest sample after
// the read): then none of them is evidence.
func promCounts(pe *snapshot.PrometheusEvidence) (map[[2]string]int64, [][2]string, error) {
	if pe.OldestSample != nil && pe.OldestSample.After(pe.ReadAt) {
		return nil, nil, fmt.Errorf("oldest sample %s after the read at %s: no known span", pe.OldestSample.UTC().Format(time.RFC3339), pe.ReadAt.UTC().Format(time.RFC3339))
	}
	byKey := map[[2]string]int64{} // GVR, instance → requests
	var order [][2]string
	for _, c := range pe.Counts {
		k := [2]string{c.GVR().String(), c.Instance}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		n, ok := snapshot.AddCounts(byKey[k], c.Count)
		if !ok {
			return nil, nil, fmt.Errorf("count %d of %s %s on %q: not a count, or a sum past the largest", c.Count, c.Verb, k[0], c.Instance)
		}
		byKey[k] = n
	}
	return byKey, order, nil
}
