package replay

import (
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	fakeprofiles "github.com/mvpctl/mvpctl/test/fake/profiles"
)

// The unit tests of replay run on small hand-made profiles.
func init() { profile.ReplaceEmbedded(fakeprofiles.Fixture()) }

var at = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// threeServers is three servers a, b and c of version, the proxy configured on each.
func threeServers(t *testing.T, version string) *snapshot.Snapshot {
	t.Helper()
	s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: version, Proxy: "configured"}, {Name: "b", Version: version, Proxy: "configured"}, {Name: "c", Version: version, Proxy: "configured"}}, at)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
