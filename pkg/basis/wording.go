package basis

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The words of what a result rests on, each caveat said once, here: the marks that start the
// lines a report says first (PROVISIONAL, ASSUMED, STATED), the phrases a result's reason
// refers to them by, and the sentences of the reads that were not whole.

// Marks start the lines a report prints first, one a provisional profile, an assumption, a
// stated fact; the caveats refer to the lines by them.
const (
	ProvisionalMark = "PROVISIONAL"
	AssumedMark     = "ASSUMED"
	StatedMark      = "STATED"
)

// ProvisionalLine is a provisional profile's line: its Summary, or wide its Headline (the
// facts are listed under it).
func ProvisionalLine(p Provisional, wide bool) string {
	if !wide {
		return ProvisionalMark + " " + p.Summary() + "; -o wide lists them"
	}
	return ProvisionalMark + " " + p.Headline()
}

// AssumedLine and StatedLine are an assumption's and a stated fact's lines.
func AssumedLine(a string) string { return AssumedMark + " " + a }
func StatedLine(s string) string  { return StatedMark + " " + s }

// Summary is Headline short enough for a terminal's line: the release, the base and the
// count of facts, the modules and the facts themselves left to the long form.
func (p Provisional) Summary() string {
	minor := p.minor()
	return fmt.Sprintf("Kubernetes %s is provisional: no %s kube-apiserver exists yet; profile %s is derived from %s and the %s modules (%d facts derived, %d assumed as in %s)",
		minor, minor, p.Version, p.Base, minor, len(p.Derived), len(p.NotDerived), p.Base)
}

// Headline says in one line what the profile is and what it comes from.
func (p Provisional) Headline() string {
	var mods []string
	for _, m := range p.Modules {
		id, _, _ := strings.Cut(m, " ")
		if !strings.Contains(id, "@v0."+strings.TrimPrefix(p.Base, "v1.")) { // the release's, not the base's
			mods = append(mods, id)
		}
	}
	minor := p.minor()
	return fmt.Sprintf("Kubernetes %s is provisional: no %s kube-apiserver exists yet; profile %s is derived from the recorded %s and %s (%d facts derived, %d not derivable, assumed as in %s)",
		minor, minor, p.Version, p.Base, strings.Join(mods, ", "), len(p.Derived), len(p.NotDerived), p.Base)
}

func (p Provisional) minor() string {
	if v, err := snapshot.ParseVersion(p.Version); err == nil {
		return v.MinorString()
	}
	return p.Version
}

// ProvisionalNames are the versions of the provisional profiles ps, comma-separated.
func ProvisionalNames(ps []Provisional) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Version
	}
	return strings.Join(names, ", ")
}

// restsOnProvisional and restsOnAssumptions are the caveats of a result that rests on a
// provisional profile or on assumptions, pointing to their lines.
func restsOnProvisional(ps []Provisional) string {
	return "rests on the provisional profile " + ProvisionalNames(ps) + " (the " + ProvisionalMark + " lines)"
}

func restsOnAssumptions(n int) string {
	return fmt.Sprintf("rests on %d assumption(s) (the %s lines)", n, AssumedMark)
}

// GateCaveats are what the gate's verdict rests on besides the findings, one phrase each: what
// was not read (GateReads), the provisional profiles, the assumptions.
func (r RestsOn) GateCaveats() []string {
	var out []string
	if reads := r.GateReads(); len(reads) > 0 {
		out = append(out, "not read: "+strings.Join(reads, "; "))
	}
	if len(r.Provisional) > 0 {
		out = append(out, restsOnProvisional(r.Provisional))
	}
	if n := len(r.Assumptions); n > 0 {
		out = append(out, restsOnAssumptions(n))
	}
	return out
}

// SimulationCaveats is why a simulation's result has warnings (RestsOn.SimulationResult).
type SimulationCaveats struct{ RestsOn RestsOn }

func (c SimulationCaveats) String() string {
	r, rd := c.RestsOn, c.RestsOn.Reads
	var why []string
	if len(r.Provisional) > 0 {
		why = append(why, "it "+restsOnProvisional(r.Provisional))
	}
	if n := len(r.Assumptions); n > 0 {
		why = append(why, "it "+restsOnAssumptions(n))
	}
	if rd.Leases != nil {
		why = append(why, rd.Leases.String())
	}
	if len(rd.Unread) > 0 {
		why = append(why, UnreadWhenTaken{Names: rd.Unread}.String())
	}
	if rd.LB != nil {
		why = append(why, LBEstimated{LB: rd.LB}.String())
	}
	return strings.Join(why, "; ")
}

// NotRead is how many apiservers a snapshot could not read, of how many.
type NotRead struct{ Count, Of int }

func (r NotRead) String() string {
	return fmt.Sprintf("%d of %d apiservers could not be read (recorded with reachable: false)", r.Count, r.Of)
}

// KubeadmConfigNotRead: kube-system/kubeadm-config exists but could not be read.
type KubeadmConfigNotRead struct{ Detail string }

func (r KubeadmConfigNotRead) String() string {
	return fmt.Sprintf("kube-system/kubeadm-config could not be read (%s); the snapshot is written without it", r.Detail)
}

// UnreadWhenTaken are the servers a snapshot could not read when it was taken.
type UnreadWhenTaken struct{ Names []string }

func (r UnreadWhenTaken) String() string {
	return strings.Join(r.Names, ", ") + " could not be read when the snapshot was taken"
}

// serverNotRead is one apiserver the gate's start could not read.
func serverNotRead(name string) string { return name + " could not be read" }

// prometheusNotRead is a Prometheus whose client evidence could not be read.
func prometheusNotRead(pe *snapshot.PrometheusEvidence) string {
	return "Prometheus " + pe.URL + " could not be read: " + pe.Error
}

// LBEstimated: the snapshot was sampled through a load balancer and its server classes are
// estimated (LBSampling.Incomplete says why).
type LBEstimated struct{ LB *snapshot.LBSampling }

func (r LBEstimated) String() string { return r.LB.Incomplete() }

// LeasesNotListed: the identity leases in kube-system could not be listed (Error says why), so
// the snapshot holds the servers found otherwise and cannot know the others.
type LeasesNotListed struct{ Error string }

func (r LeasesNotListed) String() string {
	why := r.Error
	if why == "" {
		why = "no reason recorded"
	}
	return "the identity leases in kube-system could not be listed (" + why + "): other apiservers, and any that are down, are not known"
}
