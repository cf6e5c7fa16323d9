package main

import (
	"os"
	"testing"
)

// noProfileDir is the profile directory's base in tests: absolute (so it is used) and absent,
// so that the tests never load the profiles of the user who runs them.
const noProfileDir = "/nonexistent/mvpctl-test-config"

func TestMain(m *testing.M) {
	os.Setenv("XDG_CONFIG_HOME", noProfileDir)
	os.Exit(m.Run())
}
