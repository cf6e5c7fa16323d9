package preflight

import (
	"regexp"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// checkFilter refuses a preflight filter that selects nothing in the plane, the profiles or
// the replayed traffic (snapshot.GVRFilter.Unmatched).
func checkFilter(f snapshot.GVRFilter, sim *simulate.Simulation, tr *replay.Report) error {
	if f.Empty() {
		return nil
	}
	known, where := sim.Known(), "the plane and the profiles of the upgrade"
	if tr != nil {
		where = "the plane, the profiles of the upgrade and the replayed traffic"
		for _, g := range tr.GVRs {
			if gvr, err := snapshot.ParseGVR(g.GVR); err == nil {
				if _, ok := known[gvr]; !ok {
					known[gvr] = ""
				}
			}
		}
	}
	return f.Unmatched(known, where)
}

// FindingsFiltered records what a --resource/--group filter left out of a preflight report.
type FindingsFiltered struct {
	Filter string `json:"filter"`
	// Hidden counts the findings about other GVRs, accepted ones included, which the summary no
	// longer counts.
	Hidden int `json:"hidden"`
}

// Narrow keeps the findings about a GVR f selects, those about a group/version of a group it
// selects, and those about no GVR (a server's configuration, the traffic input) — accepted ones
// (an --ignore or baseline rule) too — counts the summary again and records how many findings
// were left out; the simulation behind the report is narrowed the same way.
func (r *Report) Narrow(f snapshot.GVRFilter, kinds map[snapshot.GVR]string) {
	if f.Empty() {
		return
	}
	keep := func(subject string) bool {
		gvr, group := subjectGVR(subject)
		switch {
		case gvr != "" && !f.MatchName(gvr, kinds):
			return false
		case gvr == "" && group != "" && !f.MatchGroupOf(group, kinds):
			return false
		}
		return true
	}
	kept := make([]Finding, 0, len(r.Findings))
	for _, fd := range r.Findings {
		if keep(fd.Subject) {
			kept = append(kept, fd)
		}
	}
	var accepted []AcceptedFinding
	for _, a := range r.Accepted {
		if keep(a.Subject) {
			accepted = append(accepted, a)
		}
	}
	r.Filtered = &FindingsFiltered{Filter: f.String(), Hidden: len(r.Findings) - len(kept) + len(r.Accepted) - len(accepted)}
	r.Findings, r.Accepted = kept, accepted
	r.summarize()
	if r.Simulation != nil {
		r.Simulation.Narrow(f, kinds)
	}
}

// subjectGVR is the GVR a finding's subject names ("kas-a batch/v1/jobs", "batch/v1/jobs@kas-a",
// "kas-a v1/pods"), if it names one; the group of a group/version ("kas-a batch/v1beta1",
// "batch/v1beta1@kas-a": a --runtime-config entry) is returned instead.
func subjectGVR(subject string) (gvr string, group string) {
	for _, w := range strings.FieldsFunc(subject, func(r rune) bool { return r == ' ' || r == '@' }) {
		parts := strings.Split(w, "/")
		switch {
		case len(parts) == 3 && parts[0] != "" && parts[1] != "" && parts[2] != "":
			return w, ""
		case len(parts) == 2 && kubeVersion.MatchString(parts[0]) && parts[1] != "":
			return w, "" // core: v1/pods
		case len(parts) == 2 && parts[0] != "" && kubeVersion.MatchString(parts[1]):
			return "", parts[0]
		}
	}
	return "", ""
}

// kubeVersion is an API version: v1, v1beta2, v2alpha1.
var kubeVersion = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
