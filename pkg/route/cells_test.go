package route

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestTableCellsAgreeWithDecide: a routing table's cells are verdicts without words (no steps,
// no plain text); every cell still says what the full decision (explain's) says, on the repository's
// snapshots and a generated one with a CRD group/version missing from one server.
func TestTableCellsAgreeWithDecide(t *testing.T) {
	files, err := filepath.Glob("../../cmd/mvpctl/testdata/snapshots/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../../examples/skew.yaml")
	var snaps []*snapshot.Snapshot
	for _, f := range files {
		if s, err := snapshot.LoadFile(f); err == nil {
			snaps = append(snaps, s)
		}
	}
	if len(snaps) < 4 {
		t.Fatalf("only %d snapshots load", len(snaps))
	}
	crd := scaleSnapshot(200)
	crd.Cluster.CustomResourceGroupVersions = []string{"g1.example.com/v1", "g7.example.com/v1"}
	snaps = append(snaps, crd)
	cells := 0
	for _, s := range snaps {
		r := NewRouter(s)
		for _, row := range r.Table(true).Rows {
			req, err := ParseRequest("GET", ListPath(row.GVR))
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range r.views {
				if !v.srv.Reachable {
					continue
				}
				d := r.decide(v, req)
				want := Cell{Server: v.srv.Name, Outcome: d.Outcome, Status: d.Status, Unavailable: d.Unavailable,
					Peers: d.Peers, Text: d.Cell(), Inferred: d.Inferred}
				if !reflect.DeepEqual(row.Cells[i], want) {
					t.Errorf("%s on %s: table cell %+v, decision %+v", row.Name, v.srv.Name, row.Cells[i], want)
				}
				cells++
			}
		}
	}
	if cells < 1000 {
		t.Errorf("only %d cells compared", cells)
	}
}

// TestTableTracesFullDecisions: with decisions traced (mvpctl -v 4), a table's cells are
// decided in full, so each traced decision has its answer in words.
func TestTableTracesFullDecisions(t *testing.T) {
	defer func() { TraceDecision = nil }()
	traced := 0
	TraceDecision = func(request string, d Decision) {
		traced++ // the table above is built on one goroutine (fewer rows than minRowsPerGoroutine)
		if d.Plain.Answer == "" {
			t.Errorf("%s on %s: traced without its answer", request, d.Server)
		}
	}
	NewRouter(scaleSnapshot(100)).Table(true)
	if traced != 500 {
		t.Errorf("%d decisions traced, want 500", traced)
	}
}
