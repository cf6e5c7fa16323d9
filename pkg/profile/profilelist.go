package profile

import (
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// ListKind is the kind of List.
const ListKind = "ProfileList"

// List describes the version profiles in use (`mvpctl profiles list -o json|yaml`).
type List struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Items      []Summary `json:"items"`
}

// Summary is one profile, without its resources.
type Summary struct {
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

// NewList describes ps.
func NewList(ps []Profile) List {
	list := List{APIVersion: report.APIVersion, Kind: ListKind, Items: []Summary{}}
	for _, p := range ps {
		list.Items = append(list.Items, Summary{Version: p.Version.String(), Resources: len(p.Resources), TakenAt: p.TakenAt, Source: p.Source, From: p.From, Provisional: p.Provisional})
	}
	return list
}
