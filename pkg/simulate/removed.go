package simulate

import (
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

// escapeState is how a server's escape is known: assumed unset (no static pod manifest states
// the environment, or the manifest takes the value from elsewhere), or stated by the manifest
// (set to a value, set to one that is no boolean, or absent from its env).
type escapeState int

const (
	escapeNoManifest escapeState = iota
	escapeValueFrom
	escapeStatedValue
	escapeStatedUnreadable
	escapeStatedAbsent
)

// removedEscape is what is known of a server's one-release escape: on, how it is known, and
// what the manifest (source) says of it (value, or why it cannot be read).
type removedEscape struct {
	on     bool
	state  escapeState
	source string
	value  string
	err    error
}

func (e removedEscape) assumed() bool {
	return e.state == escapeNoManifest || e.state == escapeValueFrom
}

// escapeOf reads the escape from what the installer states of srv: a static pod manifest's
// container env. A ConfigMap states no environment.
func escapeOf(srv *snapshot.Server) removedEscape {
	st := srv.Stated
	if st == nil || st.By() != snapshot.StatedByManifest {
		return removedEscape{state: escapeNoManifest}
	}
	for _, e := range st.Env {
		if e.Name != mvp.ServeRemovedAPIsEnv {
			continue
		}
		if e.ValueFrom {
			return removedEscape{state: escapeValueFrom, source: st.Source}
		}
		on, err := mvp.ParseServeRemovedAPIs(e.Value)
		if err != nil {
			return removedEscape{state: escapeStatedUnreadable, source: st.Source, value: e.Value, err: err}
		}
		return removedEscape{on: on, state: escapeStatedValue, source: st.Source, value: e.Value}
	}
	return removedEscape{state: escapeStatedAbsent, source: st.Source}
}

// applyRemoved is what srv, upgraded to p with cfg, serves of the group/versions p removes: the
// full set to apply cfg to (with the removed kinds when the escape keeps them), the notes, and
// the group/versions the upgrade stops serving. assumed is what of the notes is an assumption
// (the escape assumed unset), nil when none is.
func applyRemoved(srv *snapshot.Server, p profile.Profile, cfg mvp.RuntimeConfig) (full []snapshot.Resource, notes []stepNote, removed []string, assumed *removedAssumed) {
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
		return full, nil, nil, nil
	}
	switch {
	case esc.on && p.FullServeRemoved != nil:
		notes = append(notes, removedServedOnce{Server: srv.Name, GroupVersions: removed, Version: p.Version, Escape: esc})
		return p.FullServeRemoved, notes, nil, nil
	case esc.on:
		notes = append(notes, escapeNotRecorded{Server: srv.Name, Version: p.Version, Escape: esc})
	}
	if esc.assumed() {
		assumed = &removedAssumed{GroupVersions: removed, Version: p.Version, Escape: esc}
		return full, append(notes, removedAssumedNote{Server: srv.Name, removedAssumed: *assumed}), removed, assumed
	}
	notServed, _ := mvp.RemovedVersions(removed[0])
	return full, append(notes, removedNotServed{Server: srv.Name, GroupVersions: removed, Version: p.Version, NotServed: notServed, Escape: esc}), removed, nil
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
// unrecognized gate at startup, so the upgraded server would not start. ok is false otherwise.
func removedGateNote(srv *snapshot.Server, v snapshot.Version) (n removedGate, ok bool) {
	gates, ok := srv.Stated.Lookup("feature-gates")
	if !ok || mvp.NegotiatesDiscoveryV2Beta1(v) || !strings.Contains(gates, mvp.RemovedDiscoveryGate+"=") {
		return n, false
	}
	return removedGate{Server: srv.Name, Source: srv.Stated.Source, Version: v}, true
}
