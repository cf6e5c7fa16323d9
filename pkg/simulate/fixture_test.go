package simulate

import (
	"github.com/mvpctl/mvpctl/pkg/profile"
	fakeprofiles "github.com/mvpctl/mvpctl/test/fake/profiles"
)

// The unit tests of the step logic run on small hand-made profiles; tests of real data use
// the embedded ones (useEmbedded).
func init() { profile.ReplaceEmbedded(fakeprofiles.Fixture()) }
