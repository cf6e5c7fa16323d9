package profile

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Provisional is a profile a simulation used that was derived from a release's
// published modules, not recorded from its kube-apiserver (snapshot.Provisional). Reports say
// so before anything else, and a result that rests on one is not a success.
type Provisional struct {
	Version string `json:"version"`
	snapshot.Provisional
}

// ProvisionalOf are the provisional ones among the profiles of versions.
func ProvisionalOf(versions []string) []Provisional {
	var out []Provisional
	for _, v := range versions {
		if p, err := Lookup(v); err == nil && p.Provisional != nil {
			out = append(out, Provisional{Version: p.Version.String(), Provisional: *p.Provisional})
		}
	}
	return out
}

// Summary is Headline short enough for a terminal's line: the release, the base and the
// count of facts, the modules and the facts themselves left to the long form.
func (p Provisional) Summary() string {
	minor := p.Version
	if v, err := snapshot.ParseVersion(p.Version); err == nil {
		minor = v.MinorString()
	}
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
	minor := p.Version
	if v, err := snapshot.ParseVersion(p.Version); err == nil {
		minor = v.MinorString()
	}
	return fmt.Sprintf("Kubernetes %s is provisional: no %s kube-apiserver exists yet; profile %s is derived from the recorded %s and %s (%d facts derived, %d not derivable, assumed as in %s)",
		minor, minor, p.Version, p.Base, strings.Join(mods, ", "), len(p.Derived), len(p.NotDerived), p.Base)
}
