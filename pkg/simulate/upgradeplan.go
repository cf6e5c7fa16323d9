package simulate

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// UpgradePlan is a rolling upgrade of every server to version to, one at a time in order (the
// snapshot's order when empty): each server is stopped gracefully, then started at the new
// version — the window while it is down is a step of its own. A server that already runs the
// target (the same minor when to names only a minor, e.g. "1.37") is not upgraded: it gets a
// keep step that says so, with the newer patch release it is not upgraded to (Step.Patch).
func UpgradePlan(snap *snapshot.Snapshot, to string, order []string) ([]Step, error) {
	p, err := profile.Lookup(to)
	if err != nil {
		return nil, err
	}
	minorOnly := strings.Count(strings.TrimPrefix(strings.TrimSpace(to), "v"), ".") == 1
	if len(order) == 0 {
		order = snap.ServerNames()
	}
	seen := map[string]bool{}
	var steps []Step
	for _, name := range order {
		srv := snap.Find(name)
		if srv == nil {
			return nil, fmt.Errorf("--order: no server %q in the control plane (servers: %v)", name, snap.ServerNames())
		}
		if seen[name] {
			return nil, fmt.Errorf("--order: server %q listed twice", name)
		}
		seen[name] = true
		if v, err := snapshot.ParseVersion(srv.Version); err == nil &&
			(mvp.ClassifyUpgrade(v, p.Version) == mvp.UpgradeNone || (minorOnly && mvp.SameMinor(v, p.Version))) {
			keep := Step{Action: ActionKeep, Server: name}
			if mvp.ClassifyUpgrade(v, p.Version) == mvp.UpgradeAllowed {
				keep.Patch = p.Version.String()
			}
			steps = append(steps, keep)
			continue
		}
		steps = append(steps, Step{Action: ActionStop, Server: name}, Step{Action: ActionUpgrade, Server: name, To: to})
	}
	return steps, nil
}

// CheckSkew replays the upgrade steps on the servers' versions and returns one error naming
// every server whose upgrade skips a minor version or goes backwards, and the start state when
// it is itself outside the version-skew policy (mvp.ClassifyUpgrade, mvp.ControlPlaneSkew).
func CheckSkew(start *snapshot.Snapshot, steps []Step) error {
	versions := map[string]snapshot.Version{}
	for _, s := range start.Servers {
		if v, err := snapshot.ParseVersion(s.Version); err == nil {
			versions[s.Name] = v
		}
	}
	var problems []string
	if err := mvp.ControlPlaneSkew(versions); err != nil {
		problems = append(problems, "at the start, "+err.Error())
	}
	for _, st := range steps {
		if st.Action != ActionUpgrade {
			continue
		}
		p, err := profile.Lookup(st.To)
		if err != nil {
			return err
		}
		from, ok := versions[st.Server]
		if !ok {
			continue
		}
		switch mvp.ClassifyUpgrade(from, p.Version) {
		case mvp.UpgradeSkipsMinor:
			problems = append(problems, fmt.Sprintf("%s %s → %s skips a minor version", st.Server, from, p.Version))
		case mvp.UpgradeDowngrade:
			problems = append(problems, fmt.Sprintf("%s %s → %s is a downgrade", st.Server, from, p.Version))
		}
		versions[st.Server] = p.Version
	}
	if len(problems) > 0 {
		return fmt.Errorf("outside the Kubernetes version-skew policy (one minor version at a time, never backwards): %s; pass --allow-skew to simulate it anyway", strings.Join(problems, "; "))
	}
	return nil
}
