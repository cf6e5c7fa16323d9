package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/buildinfo"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The shipped example: kas-a v1.37.1, kas-b v1.36.3 without batch/v1.
const example = "../../../../examples/skew.yaml"

// rendered is one renderer and the formats its command offers.
type rendered struct {
	name    string
	w       output.Writer
	formats []output.Format
	want    string // in the text (or table) output
}

var (
	tableForms = []output.Format{output.FormatTable, output.FormatWide, output.FormatName, output.FormatCSV, output.FormatJSON, output.FormatYAML}
	drawn      = []output.Format{output.FormatMermaid, output.FormatDOT}
)

func renderers(t *testing.T) []rendered {
	t.Helper()
	snap, err := snapshot.LoadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	router := route.NewRouter(snap)
	req, err := route.ParseRequest("GET", "/apis/batch/v1/jobs")
	if err != nil {
		t.Fatal(err)
	}
	e, err := router.Explain(req, "")
	if err != nil {
		t.Fatal(err)
	}
	steps, err := simulate.UpgradePlan(snap, "1.37", nil)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulate.Run(snap, steps)
	if err != nil {
		t.Fatal(err)
	}
	expect := peerdiscovery.Expect(snap)
	p, err := profile.Lookup("1.36")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := profile.All()
	if err != nil {
		t.Fatal(err)
	}
	return []rendered{
		{"routes", Routes{RoutingTable: router.Table(false)}, append(tableForms, drawn...), "proxy→kas-a"},
		{"explain", Explanation{Explanation: e}, append(append([]output.Format{output.FormatText}, tableForms...), drawn...), "proxied to kas-a"},
		{"simulate", Simulation{Report: replay.SimulationReport{Simulation: sim}}, append(tableForms, drawn...), "AT RISK"},
		{"discovery diff", DiscoveryReport{Report: peerdiscovery.Diff(snap)}, tableForms, "Result:"},
		{"discovery expected", ExpectedList{List: peerdiscovery.NewExpectedList(snap, expect)}, tableForms, "kas-a"},
		{"probe", Probe{Report: &probe.Report{}}, tableForms, "Result: 0 match"},
		{"profiles list", ProfileList{List: profile.NewList(ps)}, tableForms, "1.36"},
		{"profiles show", Profile{Profile: p}, tableForms, "batch/v1/jobs"},
		{"version", Version{Version: buildinfo.NewVersion("v1.2.3", "abc", "today", snapshot.APIVersion, []string{"1.36"})}, []output.Format{output.FormatText, output.FormatJSON, output.FormatYAML}, "Client Version: v1.2.3"},
		{"snapshot", Snapshot{Snapshot: snap}, []output.Format{output.FormatYAML, output.FormatJSON}, ""},
	}
}

// TestEveryFormat: each renderer prints in every format its command offers (output.Write
// fails for a format a renderer lacks the method of), and its text says what it is about.
func TestEveryFormat(t *testing.T) {
	for _, r := range renderers(t) {
		for _, f := range r.formats {
			t.Run(r.name+" -o "+string(f), func(t *testing.T) {
				var b bytes.Buffer
				if err := output.Write(&b, r.w, output.Options{Format: f}); err != nil {
					t.Fatal(err)
				}
				if b.Len() == 0 && f != output.FormatName {
					t.Fatal("nothing printed")
				}
				if (f == output.FormatTable || f == output.FormatText) && !strings.Contains(b.String(), r.want) {
					t.Errorf("lacks %q:\n%s", r.want, b.String())
				}
			})
		}
	}
}

// TestOutcomeTone: the colour of a cell is its outcome's, whatever its text says.
func TestOutcomeTone(t *testing.T) {
	snap, err := snapshot.LoadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	table := route.NewRouter(snap).Table(false)
	for i := range table.Rows {
		for j := range table.Rows[i].Cells {
			table.Rows[i].Cells[j].Text = "local" // words that would read as served
		}
	}
	var b bytes.Buffer
	if err := (Routes{RoutingTable: table}).WriteText(&b, output.Options{Format: output.FormatTable, Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ansiCyan+"local"+ansiReset) {
		t.Errorf("a proxied cell worded \"local\" is not painted as proxied:\n%q", b.String())
	}
}
