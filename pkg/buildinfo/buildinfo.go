// Package buildinfo describes an mvpctl build: its version, commit and build date (set by
// the linker in package main), the Go toolchain and the platform.
package buildinfo

import (
	"runtime"

	"github.com/mvpctl/mvpctl/pkg/report"
)

// VersionKind is the kind of Version.
const VersionKind = "Version"

// Version is `mvpctl version -o json|yaml`.
type Version struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Client     Client `json:"client"`
	// SnapshotFormat is the snapshot apiVersion this build reads and writes.
	SnapshotFormat string `json:"snapshotFormat"`
	// Profiles are the versions of the kube-apiserver profiles embedded in this build, which
	// simulations start from (mvpctl profiles list), oldest first.
	Profiles []string `json:"profiles"`
}

// Client is the mvpctl binary.
type Client struct {
	Version   string `json:"version"`
	GitCommit string `json:"gitCommit"`
	BuildDate string `json:"buildDate"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// NewVersion describes the running binary. version, gitCommit and buildDate are what the
// build stamped into it; snapshotFormat is the snapshot apiVersion it reads and writes;
// profiles are the versions of its embedded profiles.
func NewVersion(version, gitCommit, buildDate, snapshotFormat string, profiles []string) Version {
	return Version{
		APIVersion: report.APIVersion,
		Kind:       VersionKind,
		Client: Client{Version: version, GitCommit: gitCommit, BuildDate: buildDate,
			GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH},
		SnapshotFormat: snapshotFormat,
		Profiles:       profiles,
	}
}
