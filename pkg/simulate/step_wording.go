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

// noteText is a note removed.go words itself (the release's removals and the discovery
// gate it deletes).
type noteText string

func (n noteText) words() string { return string(n) }

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
