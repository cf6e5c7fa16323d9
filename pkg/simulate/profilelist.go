package simulate

import (
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// ProfileListKind is the kind of ProfileList.
const ProfileListKind = "ProfileList"

// ProfileList describes the version profiles in use (`mvpctl profiles list -o json|yaml`).
type ProfileList struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Items      []ProfileSummary `json:"items"`
}

// ProfileSummary is one profile, without its resources.
type ProfileSummary struct {
	Version string `json:"version"`
	// Resources is how many resources the profile's server serves.
	Resources int    `json:"resources"`
	TakenAt   string `json:"takenAt"`
	Source    string `json:"source"`
	// From is where the profile was loaded from: "embedded", or the path of its file.
	From string `json:"from"`
	// Provisional says, for a profile derived from published modules rather than recorded,
	// the modules, what was derived and what could not be.
	Provisional *snapshot.Provisional `json:"provisional,omitempty"`
}

// NewProfileList describes ps.
func NewProfileList(ps []Profile) ProfileList {
	list := ProfileList{APIVersion: report.APIVersion, Kind: ProfileListKind, Items: []ProfileSummary{}}
	for _, p := range ps {
		list.Items = append(list.Items, ProfileSummary{Version: p.Version.String(), Resources: len(p.Resources), TakenAt: p.TakenAt, Source: p.Source, From: p.From, Provisional: p.Provisional})
	}
	return list
}
