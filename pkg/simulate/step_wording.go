package simulate

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The sentences of what a step did that the routing does not show. The step units return
// typed notes (stepDone.notes); they are worded here, once, when Run reports the step.

// A stepNote is one thing a step did that the routing does not show.
type stepNote interface{ words() string }

// wordNotes are notes as the sentences a StepResult carries.
func wordNotes(notes []stepNote) []string {
	var out []string
	for _, n := range notes {
		out = append(out, n.words())
	}
	return out
}

// configNotInferred: an upgraded server's --runtime-config could not be inferred from what it
// serves (Why), so it is upgraded to Version's defaults.
type configNotInferred struct {
	Server, Why string
	Version     snapshot.Version
}

func (n configNotInferred) words() string {
	return fmt.Sprintf("%s: its --runtime-config could not be inferred (%s): it is upgraded to %s's defaults", n.Server, n.Why, n.Version)
}

// configMisfits: what an upgraded server serves fits no --runtime-config; the closest one is
// kept.
type configMisfits struct {
	Server  string
	Misfits []string
	Closest string
}

func (n configMisfits) words() string {
	return fmt.Sprintf("%s: what it serves fits no --runtime-config (%s); the closest, %q, is kept", n.Server, strings.Join(n.Misfits, "; "), n.Closest)
}

// configKept: an upgraded server keeps its --runtime-config (stated by StatedSource, when
// not "").
type configKept struct {
	Server       string
	Config       mvp.RuntimeConfig
	StatedSource string
}

func (n configKept) words() string {
	source := ""
	if n.StatedSource != "" {
		source = " (stated: " + n.StatedSource + ")"
	}
	return fmt.Sprintf("%s keeps --runtime-config=%s%s", n.Server, n.Config, source)
}

// unknownGroupVersion: an upgraded server's --runtime-config names a group/version its new
// version does not have.
type unknownGroupVersion struct {
	Server, GroupVersion string
	Version              snapshot.Version
}

func (n unknownGroupVersion) words() string {
	return fmt.Sprintf("%s: --runtime-config names %s, which %s does not have: %s", n.Server, n.GroupVersion, n.Version, mvp.UnknownGroupVersionAtStartup)
}

// patchLeftOut: a keep step leaves a server at an older patch release than Patch.
type patchLeftOut struct{ Server, Version, Patch string }

func (n patchLeftOut) words() string {
	return PatchNote(n.Version, Step{Action: ActionKeep, Server: n.Server, Patch: n.Patch})
}

// words says where what is known of the escape comes from: the basis's word, then why.
func (e removedEscape) words() string {
	env := mvp.ServeRemovedAPIsEnv
	switch e.state {
	case escapeNoManifest:
		return fmt.Sprintf("%s: %s unset (no static pod manifest states the environment of its kube-apiserver; give it with --static-pod-manifest)", mvp.AssumedEvidence, env)
	case escapeValueFrom:
		return fmt.Sprintf("%s: %s unset (%s takes its value from elsewhere: valueFrom)", mvp.AssumedEvidence, env, e.source)
	case escapeStatedUnreadable:
		return fmt.Sprintf("%s (%s): %v", mvp.StatedEvidence, e.source, e.err)
	case escapeStatedValue:
		return fmt.Sprintf("%s (%s): %s=%s", mvp.StatedEvidence, e.source, env, e.value)
	}
	return fmt.Sprintf("%s (%s): no %s in its env", mvp.StatedEvidence, e.source, env)
}

// removedServedOnce: an upgraded server's --runtime-config enables group/versions Version
// removes, and the escape keeps them served for this release.
type removedServedOnce struct {
	Server        string
	GroupVersions []string
	Version       snapshot.Version
	Escape        removedEscape
}

func (n removedServedOnce) words() string {
	return fmt.Sprintf("%s: --runtime-config enables %s, which %s removes; served for this release only, %s (k8s.io/apiserver pkg/server/deleted_kinds.go:167-169); the next minor drops it whatever the environment says",
		n.Server, strings.Join(n.GroupVersions, ", "), n.Version.MinorString(), n.Escape.words())
}

// escapeNotRecorded: the escape is on, but the profile of Version does not record what it
// serves.
type escapeNotRecorded struct {
	Server  string
	Version snapshot.Version
	Escape  removedEscape
}

func (n escapeNotRecorded) words() string {
	return fmt.Sprintf("%s: %s, but profile %s does not record what the escape serves: simulated as not served", n.Server, n.Escape.words(), n.Version)
}

// removedNotServed: an upgraded server's --runtime-config enables group/versions Version
// removes, and they are not served (NotServed says in which versions), as the escape is
// stated off or absent.
type removedNotServed struct {
	Server        string
	GroupVersions []string
	Version       snapshot.Version
	NotServed     string
	Escape        removedEscape
}

func (n removedNotServed) words() string {
	return fmt.Sprintf("%s: --runtime-config enables %s, which %s removes (%s): not served even when enabled (k8s.io/apiserver pkg/server/deleted_kinds.go:150-171); %s",
		n.Server, strings.Join(n.GroupVersions, ", "), n.Version.MinorString(), n.NotServed, n.Escape.words())
}

// removedAssumed: the escape is assumed unset, so the release Version does not serve the
// group/versions it removes: what the step assumed, for every server it holds for.
type removedAssumed struct {
	GroupVersions []string
	Version       snapshot.Version
	Escape        removedEscape
}

func (n removedAssumed) words() string {
	return n.Escape.words() + ", so its " + n.Version.MinorString() + " binary does not serve " + strings.Join(n.GroupVersions, ", ")
}

// removedAssumedNote is removedAssumed as the note of one server's step.
type removedAssumedNote struct {
	Server string
	removedAssumed
}

func (n removedAssumedNote) words() string { return n.Server + ": " + n.removedAssumed.words() }

// removedGate: a server's stated --feature-gates (Source) sets the discovery gate that Version
// deletes, so the upgraded server would not start.
type removedGate struct {
	Server, Source string
	Version        snapshot.Version
}

func (n removedGate) words() string {
	v := n.Version.MinorString()
	return fmt.Sprintf("%s: its stated --feature-gates (%s) sets %s, which %s deletes (%s: apidiscovery.k8s.io/v2 only): kube-apiserver %s refuses an unrecognized feature gate and does not start; drop it from --feature-gates before the upgrade",
		n.Server, n.Source, mvp.RemovedDiscoveryGate, v, mvp.RuleDiscoveryV2Only.Versions(), v)
}

// statedUpgradeEvidence is the STATED evidence line of a server upgraded to v with the stated
// flags sp.
func statedUpgradeEvidence(sp mvp.StatedProxy, v snapshot.Version) string {
	return fmt.Sprintf("%s (%s): upgraded to %s with the same flags: %s", mvp.StatedEvidence, sp.Source, v.MinorString(), sp.Words(v))
}

// PatchNote says that a keep step leaves a server at an older patch release, and how to
// rehearse the restart its patch upgrade is.
func PatchNote(version string, step Step) string {
	return fmt.Sprintf("%s runs %s: a patch upgrade to %s restarts it, which this plan does not; --to %s rehearses it",
		step.Server, version, step.Patch, strings.TrimPrefix(step.Patch, "v"))
}
