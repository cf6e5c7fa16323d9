package profile

import "github.com/mvpctl/mvpctl/pkg/basis"

// ProvisionalOf are the provisional ones among the profiles of versions: what a result that
// uses them rests on (basis.RestsOn.Provisional).
func ProvisionalOf(versions []string) []basis.Provisional {
	var out []basis.Provisional
	for _, v := range versions {
		if p, err := Lookup(v); err == nil && p.Provisional != nil {
			out = append(out, basis.Provisional{Version: p.Version.String(), Provisional: *p.Provisional})
		}
	}
	return out
}
