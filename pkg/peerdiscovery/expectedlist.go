package peerdiscovery

import (
	"time"

	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// ExpectedListKind is the kind of ExpectedList.
const ExpectedListKind = "ExpectedDiscoveryList"

// ExpectedList is the expected peer-aggregated /apis of several servers, as one versioned
// document (`mvpctl discovery expected -o json|yaml` without --apiserver).
type ExpectedList struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	TakenAt    time.Time `json:"takenAt,omitempty"`
	Source     string    `json:"source,omitempty"`
	// Partial is true when some server's document could not be predicted exactly.
	Partial bool          `json:"partial"`
	Items   []Expectation `json:"items"`
}

// NewExpectedList wraps the expectations es, computed from snap.
func NewExpectedList(snap *snapshot.Snapshot, es []Expectation) ExpectedList {
	list := ExpectedList{APIVersion: report.APIVersion, Kind: ExpectedListKind, TakenAt: snap.TakenAt, Source: snap.Source, Items: es}
	for _, e := range es {
		list.Partial = list.Partial || !e.Predicted() || len(e.Uncertain) > 0
	}
	return list
}
