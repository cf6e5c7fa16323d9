package replay

import (
	"github.com/mvpctl/mvpctl/pkg/profile"
	fakeprofiles "github.com/mvpctl/mvpctl/test/fake/profiles"
)

// The unit tests of replay run on small hand-made profiles (test/fake/planes starts its
// planes from them).
func init() { profile.ReplaceEmbedded(fakeprofiles.Fixture()) }
