// Package lifecycle is the lifecycle of every built-in Kubernetes API type that Kubernetes
// states one for: the release each group/version/kind was introduced, deprecated and removed
// in, and its replacement. The rows are derived, never kept by hand, from k8s.io/api's
// generated APILifecycleIntroduced, APILifecycleDeprecated, APILifecycleReplacement and
// APILifecycleRemoved functions (zz_generated.prerelease-lifecycle.go) of every module
// version in Table.Modules; a type that newer modules no longer hold keeps the row of the
// newest module that did, and each row cites that module. `make lifecycle` re-derives
// lifecycle.json from the module cache (tools/gen/lifecycle); a test there compares.
//
// A type that states no lifecycle (older GA types) has no row: what a cluster serves is read
// from its discovery (or a recorded profile), not from this table, which says what Kubernetes
// states of each type's past and future.
package lifecycle

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Release is a Kubernetes minor release, as k8s.io/api's lifecycle functions state it.
type Release struct{ Major, Minor int }

// String is "1.22"; "" for the zero Release (not stated).
func (r Release) String() string {
	if r.IsZero() {
		return ""
	}
	return fmt.Sprintf("%d.%d", r.Major, r.Minor)
}

// IsZero says the release is not stated.
func (r Release) IsZero() bool { return r == Release{} }

// Before says r is an earlier release than o.
func (r Release) Before(o Release) bool {
	return r.Major < o.Major || r.Major == o.Major && r.Minor < o.Minor
}

// ParseRelease reads "1.22", "v1.22" or "1.22.3" (the patch is ignored).
func ParseRelease(s string) (Release, error) {
	parts := strings.SplitN(strings.TrimPrefix(s, "v"), ".", 3)
	if len(parts) < 2 {
		return Release{}, fmt.Errorf("release %q: want MAJOR.MINOR (1.22)", s)
	}
	maj, err1 := strconv.Atoi(parts[0])
	min, err2 := strconv.Atoi(strings.SplitN(parts[1], "-", 2)[0])
	if err1 != nil || err2 != nil || maj < 0 || min < 0 {
		return Release{}, fmt.Errorf("release %q: want MAJOR.MINOR (1.22)", s)
	}
	return Release{maj, min}, nil
}

// MarshalText writes "1.22".
func (r Release) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads "1.22".
func (r *Release) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*r = Release{}
		return nil
	}
	v, err := ParseRelease(string(b))
	*r = v
	return err
}

// GVK is a group, version and kind; Group is "" for the core group.
type GVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// APIVersion is the apiVersion of a manifest: "group/version", or "version" for the core group.
func (g GVK) APIVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// String is "apiVersion Kind" ("networking.k8s.io/v1 Ingress").
func (g GVK) String() string { return g.APIVersion() + " " + g.Kind }

// SplitAPIVersion splits an apiVersion into group and version ("v1" is the core group).
func SplitAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

// Row is the lifecycle of one group/version/kind.
type Row struct {
	GVK
	// Resource is the kind's resource (plural, lower case): from the discovery of a recorded
	// profile whose binary serves the kind, else by the rule of k8s.io/apimachinery's
	// meta.UnsafeGuessKindToResource (ResourceFrom says which); "" for a List kind.
	Resource     string  `json:"resource,omitempty"`
	ResourceFrom string  `json:"resourceFrom,omitempty"`
	Introduced   Release `json:"introduced,omitzero"`
	Deprecated   Release `json:"deprecated,omitzero"`
	Removed      Release `json:"removed,omitzero"`
	Replacement  *GVK    `json:"replacement,omitempty"`
	// Source is the module the row was read from: k8s.io/api@vX.Y.Z.
	Source string `json:"source"`
}

// GVR is the row's group/version/resource, printed as mvpctl prints GVRs ("apps/v1beta1/deployments").
func (r Row) GVR() string {
	if r.Resource == "" {
		return ""
	}
	return r.APIVersion() + "/" + r.Resource
}

// Table is every row, ordered by group, version and kind.
type Table struct {
	// Modules are the k8s.io/api module versions the rows were derived from, oldest first.
	Modules []string `json:"modules"`
	Rows    []Row    `json:"rows"`
}

//go:embed lifecycle.json
var embedded []byte

var (
	loadOnce sync.Once
	loaded   *Table
	index    map[GVK]*Row
	loadErr  error
)

// Load returns the embedded table (decoded once per process).
func Load() (*Table, error) {
	loadOnce.Do(func() {
		var t Table
		if loadErr = json.Unmarshal(embedded, &t); loadErr != nil {
			loadErr = fmt.Errorf("lifecycle table: %w", loadErr)
			return
		}
		loaded, index = &t, map[GVK]*Row{}
		for i := range t.Rows {
			index[t.Rows[i].GVK] = &t.Rows[i]
		}
	})
	return loaded, loadErr
}

// MustLoad is Load for callers that cannot go on without the table: the embedded table is
// checked by the package's tests, so an error is a broken build.
func MustLoad() *Table {
	t, err := Load()
	if err != nil {
		panic(err)
	}
	return t
}

// Lookup is the row of gvk, if Kubernetes states a lifecycle for it.
func (t *Table) Lookup(gvk GVK) (Row, bool) {
	if t == loaded && index != nil {
		if r, ok := index[gvk]; ok {
			return *r, true
		}
		return Row{}, false
	}
	for _, r := range t.Rows {
		if r.GVK == gvk {
			return r, true
		}
	}
	return Row{}, false
}

// Sort orders rows by group, version and kind.
func Sort(rows []Row) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i].GVK, rows[j].GVK
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
}

// State is what a release does with a row's API.
type State string

const (
	// NotYet: the release predates the API's introduction.
	NotYet State = "not-yet"
	// Current: introduced, neither deprecated nor removed by the release.
	Current State = "current"
	// Deprecated: deprecated by the release, still served (a warning on every request).
	Deprecated State = "deprecated"
	// Removed: the release no longer serves it.
	Removed State = "removed"
)

// At is the row's state at release rel.
func (r Row) At(rel Release) State {
	switch {
	case !r.Removed.IsZero() && !rel.Before(r.Removed):
		return Removed
	case !r.Introduced.IsZero() && rel.Before(r.Introduced):
		return NotYet
	case !r.Deprecated.IsZero() && !rel.Before(r.Deprecated):
		return Deprecated
	}
	return Current
}

// ResourceByRule is Row.ResourceFrom of a resource guessed by GuessResource.
const ResourceByRule = "rule"

// GuessResource is k8s.io/apimachinery's meta.UnsafeGuessKindToResource: the lower-case kind,
// plural by its English rule.
func GuessResource(kind string) string {
	if kind == "" {
		return ""
	}
	s := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(s, "s"):
		return s + "es"
	case strings.HasSuffix(s, "y"):
		return strings.TrimSuffix(s, "y") + "ies"
	}
	return s + "s"
}
