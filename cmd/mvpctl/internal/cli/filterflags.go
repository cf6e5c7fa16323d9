package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// FilterFlags are --resource and --group, with the same names, forms and meaning on every
// command that has them (probe, routes, explain, simulate, preflight); the matching itself is
// snapshot.GVRFilter's.
type FilterFlags struct {
	Resources []string
	Groups    []string
}

// AddFlags adds --resource and --group; verb says what the command does with the GVRs they
// select ("probe", "show").
func (f *FilterFlags) AddFlags(fs *pflag.FlagSet, verb string) {
	fs.StringSliceVar(&f.Resources, "resource", nil, verb+" these resources: jobs, jobs.batch, batch/v1/jobs, v1/pods, a kind or a short name (comma-separated, repeatable)")
	fs.StringSliceVar(&f.Groups, "group", nil, verb+` these API groups ("core" for the core group; comma-separated, repeatable)`)
}

// Filter is the GVRs --resource and --group select.
func (f *FilterFlags) Filter() snapshot.GVRFilter {
	return snapshot.GVRFilter{Resources: f.Resources, Groups: f.Groups}
}

// FilterOf is Filter with the other names of snap's resources (short names, singulars,
// kinds), so that --resource cj selects batch/v1/cronjobs as kubectl's names do.
func (f *FilterFlags) FilterOf(snap *snapshot.Snapshot) snapshot.GVRFilter {
	filter := f.Filter()
	if len(filter.Resources) > 0 {
		filter.Names = snap.ResourceNames()
	}
	return filter
}

// NoMatch is the error of a filter that selects nothing: a typo must not look like "nothing
// at risk".
func NoMatch(f snapshot.GVRFilter) error {
	return fmt.Errorf("no group/version/resource matches %s ('mvpctl routes --all' lists them)", f)
}
