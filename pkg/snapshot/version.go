package snapshot

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes major.minor.patch version.
type Version struct {
	Major, Minor, Patch int
}

// ParseVersion accepts "v1.36.3", "1.36.3", "1.36", and build suffixes ("v1.36.3-gke.100").
func ParseVersion(s string) (Version, error) {
	orig := s
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("%q is not a Kubernetes version (want e.g. v1.36.3)", orig)
	}
	var nums [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return Version{}, fmt.Errorf("%q is not a Kubernetes version (want e.g. v1.36.3)", orig)
		}
		nums[i] = n
	}
	return Version{Major: nums[0], Minor: nums[1], Patch: nums[2]}, nil
}

// ParsePatch is ParseVersion of a version that names its patch release ("1.36.3",
// "v1.36.3-gke.100"; not "1.36"); ok is false for any other.
func ParsePatch(s string) (v Version, ok bool) {
	v, err := ParseVersion(s)
	return v, err == nil && strings.Count(strings.TrimPrefix(strings.TrimSpace(s), "v"), ".") == 2
}

func (v Version) String() string { return fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Compare orders versions (major, then minor, then patch): negative when v is older than w,
// zero when equal, positive when newer.
func (v Version) Compare(w Version) int {
	switch {
	case v.Major != w.Major:
		return v.Major - w.Major
	case v.Minor != w.Minor:
		return v.Minor - w.Minor
	}
	return v.Patch - w.Patch
}

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool { return v.Compare(w) < 0 }

// MinorString returns "1.36".
func (v Version) MinorString() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// checkVersion validates a version field of a snapshot (empty: not recorded). Kubernetes has
// only ever been 1.x: another major is not something an apiserver reported, and reading it
// as older or newer than every 1.x would route by rules that do not apply. A minor newer than
// mvpctl knows is no error: pkg/mvp says what is then assumed (mvp.Assumptions).
func checkVersion(s, field string) error {
	if s == "" {
		return nil
	}
	v, err := ParseVersion(s)
	if err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	if v.Major != 1 {
		return fmt.Errorf("%s: %q is Kubernetes %d.x; mvpctl knows Kubernetes 1.x, the only major version there has been", field, s, v.Major)
	}
	return nil
}
