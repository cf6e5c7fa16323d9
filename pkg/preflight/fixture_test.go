package preflight

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/profile"
	fakeprofiles "github.com/mvpctl/mvpctl/test/fake/profiles"
)

// The unit tests of the gate run on small hand-made profiles (test/fake/planes starts its
// planes from them); tests of real data use the embedded ones (useEmbedded).
func init() { profile.ReplaceEmbedded(fakeprofiles.Fixture()) }

// useEmbedded makes the embedded profiles (real apiservers, and the provisional one) those in
// use until the test ends; the other tests use small hand-made ones (fixture_test.go).
func useEmbedded(t *testing.T) {
	t.Helper()
	t.Cleanup(profile.ReplaceEmbedded(nil))
}
