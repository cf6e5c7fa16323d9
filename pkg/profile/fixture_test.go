package profile

import fakeprofiles "github.com/mvpctl/mvpctl/test/fake/profiles"

// The unit tests of profile loading run on small hand-made profiles; tests of real data use
// the embedded ones.
var (
	testProfiles = fakeprofiles.Fixture()
	profileFile  = fakeprofiles.File
	withFull     = fakeprofiles.WithFull
)

func init() { profileSource = testProfiles }
