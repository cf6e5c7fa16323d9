package simulate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// A group/version whose kinds a release removes is not served by that release even when
// --runtime-config switches it on, unless the process runs with the one-release escape
// (mvp.ServeRemovedAPIsEnv). Whether it does is read from the static pod manifest's env
// (--static-pod-manifest): STATED; without one it is assumed unset, and the simulation says so.

// removedEscape is what is known of a server's one-release escape.
type removedEscape struct {
	on bool
	// basis is how on is known: stated (a manifest's env) or assumed.
	basis snapshot.EvidenceBasis
	// evidence says, for people, where on comes from: the basis's word, then why.
	evidence string
}

func (e removedEscape) assumed() bool { return e.basis == snapshot.EvidenceAssumed }

// escapeOf reads the escape from what the installer states of srv: a static pod manifest's
// container env. A ConfigMap states no environment.
func escapeOf(srv *snapshot.Server) removedEscape {
	st := srv.Stated
	if st == nil || st.By() != snapshot.StatedByManifest {
		return removedEscape{basis: snapshot.EvidenceAssumed, evidence: fmt.Sprintf("%s: %s unset (no static pod manifest states the environment of its kube-apiserver; give it with --static-pod-manifest)", mvp.AssumedEvidence, mvp.ServeRemovedAPIsEnv)}
	}
	for _, e := range st.Env {
		if e.Name != mvp.ServeRemovedAPIsEnv {
			continue
		}
		if e.ValueFrom {
			return removedEscape{basis: snapshot.EvidenceAssumed, evidence: fmt.Sprintf("%s: %s unset (%s takes its value from elsewhere: valueFrom)", mvp.AssumedEvidence, mvp.ServeRemovedAPIsEnv, st.Source)}
		}
		on, err := mvp.ParseServeRemovedAPIs(e.Value)
		if err != nil {
			return removedEscape{basis: snapshot.EvidenceStated, evidence: fmt.Sprintf("%s (%s): %v", mvp.StatedEvidence, st.Source, err)}
		}
		return removedEscape{on: on, basis: snapshot.EvidenceStated, evidence: fmt.Sprintf("%s (%s): %s=%s", mvp.StatedEvidence, st.Source, mvp.ServeRemovedAPIsEnv, e.Value)}
	}
	return removedEscape{basis: snapshot.EvidenceStated, evidence: fmt.Sprintf("%s (%s): no %s in its env", mvp.StatedEvidence, st.Source, mvp.ServeRemovedAPIsEnv)}
}

// applyRemoved is what srv, upgraded to p with cfg, serves of the group/versions p removes: the
// full set to apply cfg to (with the removed kinds when the escape keeps them), the notes, and
// the group/versions the upgrade stops serving. assumed is what of the notes is an assumption
// (the escape assumed unset), "" when none is.
func applyRemoved(srv *snapshot.Server, p profile.Profile, cfg mvp.RuntimeConfig) (full []snapshot.Resource, notes []string, removed []string, assumed string) {
	full = p.Full
	esc := escapeOf(srv)
	// The group/versions cfg switches on, by name or with api/all=true, that p's release removes
	// even when enabled.
	for _, gv := range mvp.RemovedGroupVersions(p.Version) {
		if slices.Contains(cfg.Enabled, gv) || (cfg.AllAPIs && !slices.Contains(cfg.Disabled, gv)) {
			removed = append(removed, gv)
		}
	}
	if len(removed) == 0 {
		return full, nil, nil, ""
	}
	gvs := strings.Join(removed, ", ")
	notServed, _ := mvp.RemovedVersions(removed[0])
	switch {
	case esc.on && p.FullServeRemoved != nil:
		notes = append(notes, fmt.Sprintf("%s: --runtime-config enables %s, which %s removes; served for this release only, %s (k8s.io/apiserver pkg/server/deleted_kinds.go:167-169); the next minor drops it whatever the environment says",
			srv.Name, gvs, p.Version.MinorString(), esc.evidence))
		return p.FullServeRemoved, notes, nil, ""
	case esc.on:
		notes = append(notes, fmt.Sprintf("%s: %s, but profile %s does not record what the escape serves: simulated as not served", srv.Name, esc.evidence, p.Version))
	}
	line := fmt.Sprintf("%s: --runtime-config enables %s, which %s removes (%s): not served even when enabled (k8s.io/apiserver pkg/server/deleted_kinds.go:150-171); %s",
		srv.Name, gvs, p.Version.MinorString(), notServed, esc.evidence)
	if esc.assumed() {
		assumed = esc.evidence + ", so its " + p.Version.MinorString() + " binary does not serve " + strings.Join(removed, ", ")
		line = srv.Name + ": " + assumed
	}
	return full, append(notes, line), removed, assumed
}

// RemovedHint is the fix for clients of gvr, which no apiserver serves after the last step:
// for a group/version a release removes, move them to the version of the group the target
// serves (a GA one first) or, for that release only, the escape; else generic.
func RemovedHint(sim *Simulation, gvr, generic string) string {
	g, err := snapshot.ParseGVR(gvr)
	if err != nil {
		return generic
	}
	gv := g.GroupVersion()
	if _, ok := mvp.RemovedGroupVersion(gv); !ok {
		return generic
	}
	return mvp.RemovedFix(gv, replacementOf(sim.Steps[len(sim.Steps)-1].snap, g))
}

// replacementOf is the group/version of g's group that serves g's resource at the end, a GA
// version before a prerelease one; "" when none does.
func replacementOf(end *snapshot.Snapshot, g snapshot.GVR) string {
	best := ""
	for _, srv := range end.Servers {
		for _, r := range srv.Resources {
			if r.Group != g.Group || r.Resource != g.Resource || r.Version == g.Version {
				continue
			}
			gv := r.GroupVersion()
			if best == "" || (mvp.PrereleaseAPIVersion(best[strings.LastIndex(best, "/")+1:]) && !mvp.PrereleaseAPIVersion(r.Version)) {
				best = gv
			}
		}
	}
	return best
}

// removedGateNote says when srv's stated --feature-gates names the discovery gate that release
// v deletes with v2beta1 discovery (mvp.NegotiatesDiscoveryV2Beta1): kube-apiserver refuses an
// unrecognized gate at startup, so the upgraded server would not start.
func removedGateNote(srv *snapshot.Server, v snapshot.Version) string {
	gates, ok := srv.Stated.Lookup("feature-gates")
	if !ok || mvp.NegotiatesDiscoveryV2Beta1(v) || !strings.Contains(gates, mvp.RemovedDiscoveryGate+"=") {
		return ""
	}
	return fmt.Sprintf("%s: its stated --feature-gates (%s) sets %s, which %s deletes (%s: apidiscovery.k8s.io/v2 only): kube-apiserver %s refuses an unrecognized feature gate and does not start; drop it from --feature-gates before the upgrade",
		srv.Name, srv.Stated.Source, mvp.RemovedDiscoveryGate, v.MinorString(), mvp.RuleDiscoveryV2Only.Versions(), v.MinorString())
}
