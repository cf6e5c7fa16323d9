package snapshot

import "strings"

// statedManifestPrefix starts the Source of flags a static pod manifest states
// (ManifestSource).
const statedManifestPrefix = "manifest "

// StatedBy is the kind of installer configuration that states a server's flags.
type StatedBy int

const (
	// StatedByConfiguration: a ConfigMap's or a Cluster API object's configuration, which
	// states flags only, no environment.
	StatedByConfiguration StatedBy = iota
	// StatedByManifest: a static pod manifest, which states the flags and the container's
	// environment.
	StatedByManifest
)

// ManifestSource is the Source of the flags the static pod manifest file states.
func ManifestSource(file string) string { return statedManifestPrefix + file }

// By is the kind of configuration s was read from, as its Source says (ManifestSource): the
// one reading of the Source this package writes, so that no caller decides on its words.
func (s *StatedFlags) By() StatedBy {
	if strings.HasPrefix(s.Source, statedManifestPrefix) {
		return StatedByManifest
	}
	return StatedByConfiguration
}
