package profile

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// Capabilities says, from the version profiles loaded (Use), whether a binary of a version
// can serve a GVR at some --runtime-config: can, and known false when there is no profile
// for the version or it does not record the full set (api/all=true). Each version's set is
// built once, on first use; the function is for one goroutine (route.Router.WithCapabilities).
func Capabilities() func(version string, gvr snapshot.GVR) (can, known bool) {
	cache := map[string]map[snapshot.GVR]bool{}
	return func(version string, gvr snapshot.GVR) (bool, bool) {
		full, seen := cache[version]
		if !seen {
			if p, err := Lookup(version); err == nil && p.Full != nil {
				full = map[snapshot.GVR]bool{}
				for _, r := range p.Full {
					full[r.GVR()] = true
				}
			}
			cache[version] = full
		}
		if full == nil {
			return false, false
		}
		return full[gvr], true
	}
}
