package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/buildinfo"
	"github.com/mvpctl/mvpctl/pkg/output"
)

// Version prints the version of mvpctl (version).
type Version struct{ Version buildinfo.Version }

func (w Version) Object() any { return w.Version }

func (w Version) WriteText(out io.Writer, _ output.Options) error {
	_, err := fmt.Fprintf(out, "Client Version: %s (commit %s, built %s, %s)\nSnapshot Format: %s\nProfiles: %s\n",
		w.Version.Client.Version, w.Version.Client.GitCommit, w.Version.Client.BuildDate, w.Version.Client.GoVersion, w.Version.SnapshotFormat,
		strings.Join(w.Version.Profiles, ", "))
	return err
}
