package simulate

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// RuntimeConfigView is a server's --runtime-config as explain and snapshot report it: as its
// installer states it, when it states it readably (Stated), else as inferred from what the
// server serves (Observed).
type RuntimeConfigView struct {
	Stated   *StatedConfig
	Observed ObservedConfig
}

// RuntimeConfigs is the view of each reachable server of snap, by name.
func RuntimeConfigs(snap *snapshot.Snapshot) map[string]RuntimeConfigView {
	out := map[string]RuntimeConfigView{}
	for i := range snap.Servers {
		srv := &snap.Servers[i]
		if !srv.Reachable {
			continue
		}
		c := configOf(srv)
		if c.stated != nil && c.stated.Error == "" {
			out[srv.Name] = RuntimeConfigView{Stated: c.stated}
			continue
		}
		out[srv.Name] = RuntimeConfigView{Observed: *c.observed}
	}
	return out
}

// Full is the view in words, after "--runtime-config ": as stated, with where what the
// server serves disagrees, or as observed, with what fits no --runtime-config.
func (v RuntimeConfigView) Full() string {
	if sc := v.Stated; sc != nil {
		rc := sc.RuntimeConfig
		if rc == "" {
			rc = "<none>"
		}
		words := fmt.Sprintf("as stated (%s): %s", sc.Source, rc)
		if d := sc.RuntimeConfigDisagreement; d != "" {
			words += " — " + d + "; the server wins"
		}
		return words
	}
	c := v.Observed
	switch {
	case c.Unknown != "":
		return "as observed: unknown (" + c.Unknown + ")"
	case len(c.Misfits) > 0:
		some := c.Misfits[:min(3, len(c.Misfits))]
		return fmt.Sprintf("as observed: fits no runtime-config (%d GVRs do not fit, e.g. %s)", len(c.Misfits), strings.Join(some, "; "))
	case c.RuntimeConfig == "":
		return "as observed: the defaults"
	}
	return "as observed: " + c.RuntimeConfig
}

// Brief is Full as explain says it without --verbose: the same, except that what a server
// serves that fits no --runtime-config is "unclear".
func (v RuntimeConfigView) Brief() string {
	if v.Stated == nil && v.Observed.Unknown == "" && len(v.Observed.Misfits) > 0 {
		return "as observed: unclear (what it serves fits no --runtime-config; --verbose says why)"
	}
	return v.Full()
}
