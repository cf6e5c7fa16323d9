package main

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/profile"
)

// provisionalProfileResult is `profiles show`'s result: a provisional profile is shown, but
// what it says rests on published modules, not on a recorded apiserver.
func provisionalProfileResult(p profile.Profile) error {
	if p.Provisional == nil {
		return nil
	}
	return withCode(ExitIncomplete, fmt.Errorf("profile %s is provisional: derived from the recorded %s and published modules, no %s kube-apiserver was run (`-o yaml` lists what was derived and what not; docs/profiles.md)", p.Version, p.Provisional.Base, p.Version.MinorString()))
}
