package preflight

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

func TestParseAcceptRule(t *testing.T) {
	for _, tc := range []struct {
		rule, subject string
		want          bool
	}{
		{"MVP011", "anything/at/all", true},
		{"MVP011:batch/v1/jobs", "batch/v1/jobs", true},
		{"MVP011:batch/v1/jobs", "batch/v1/jobs2", false},
		{"MVP011:resource.k8s.io/*", "resource.k8s.io/v1beta1/deviceclasses", true}, // * crosses /
		{"MVP011:resource.k8s.io/*", "xresource.k8s.io/v1/x", false},                // anchored
		{"MVP011:*.k8s.io/v1beta?/*", "storage.k8s.io/v1beta1/volumeattributesclasses", true},
		{"MVP011:*.k8s.io/v1beta?/*", "storage.k8s.io/v1/csidrivers", false},
		{"MVP010:batch/v1/jobs@*", "batch/v1/jobs@kas-a", true},
		{"MVP010:a.b", "aXb", false}, // . is literal
	} {
		r, err := ParseAcceptRule(tc.rule, "t")
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		check, _, _ := strings.Cut(tc.rule, ":")
		if got := r.Matches(Finding{Check: check, Subject: tc.subject}); got != tc.want {
			t.Errorf("%s matches %s = %v, want %v", tc.rule, tc.subject, got, tc.want)
		}
		if r.Matches(Finding{Check: "MVP001", Subject: tc.subject}) {
			t.Errorf("%s matches another check", tc.rule)
		}
	}
	for in, want := range map[string]string{
		"MVP099":         `unknown check "MVP099"`,
		"mvp011":         `unknown check "mvp011"`,
		"":               "want ID[:SUBJECT]",
		"MVP010 a b":     "want ID[:SUBJECT]",
		"MVP010:a\tb":    "want ID[:SUBJECT]",
		":batch/v1/jobs": `unknown check ""`,
	} {
		if _, err := ParseAcceptRule(in, "t"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAcceptRule(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestParseAcceptFile(t *testing.T) {
	rules, err := ParseAcceptFile(strings.NewReader("# header\n\nMVP011:a/v1/x  # 2026-11-20 only kas-b serves it\n  MVP031 #no date here\nMVP040:x@y\n"), "f")
	if err != nil {
		t.Fatal(err)
	}
	want := []AcceptRule{
		{Check: "MVP011", Subject: "a/v1/x", Date: "2026-11-20", Reason: "only kas-b serves it", Source: "f:3"},
		{Check: "MVP031", Reason: "no date here", Source: "f:4"},
		{Check: "MVP040", Subject: "x@y", Source: "f:5"},
	}
	if len(rules) != len(want) {
		t.Fatalf("rules %+v", rules)
	}
	for i, r := range rules {
		r.match = nil
		if r != want[i] {
			t.Errorf("rule %d: %+v, want %+v", i, r, want[i])
		}
	}
	for in, wantErr := range map[string]string{
		"MVP011\nMVP012:x\n":         `f:2: "MVP012:x": unknown check`,
		"MVP011  # 2026-13-45 bad\n": `f:1: date "2026-13-45": want YYYY-MM-DD`,
		"MVP011 MVP010\n":            `f:1: "MVP011 MVP010": want ID[:SUBJECT]`,
		strings.Repeat("x", 70000):   "f: bufio.Scanner: token too long",
	} {
		if _, err := ParseAcceptFile(strings.NewReader(in), "f"); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%.30q: %v, want %q", in, err, wantErr)
		}
	}
}

// TestAccept: accepted findings move apart with the first rule that matches, do not count
// towards the result, and a rule that matches nothing is stale; WriteBaseline's file accepts
// every finding, keeping the rules that already did.
func TestAccept(t *testing.T) {
	findings := func() []Finding {
		return []Finding{
			{Check: "MVP010", Severity: Blocking, Subject: "batch/v1/jobs@a", Message: "m1"},
			{Check: "MVP011", Severity: Warning, Subject: "x.k8s.io/v1beta1/things", Message: "m2"},
			{Check: "MVP011", Severity: Warning, Subject: "x.k8s.io/v1beta1/others", Message: "m3"},
		}
	}
	rules, err := ParseAcceptFile(strings.NewReader("MVP011:x.k8s.io/*  # 2026-01-02 accepted\nMVP011:x.k8s.io/v1beta1/things\nMVP031:kas-a\n"), "base")
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Findings: findings()}
	rep.accept(rules)
	rep.summarize()
	if s := rep.Summary; s.Blocking != 1 || s.Warning != 0 || s.Accepted != 2 || s.Stale != 1 || s.Result != "blocking" {
		t.Errorf("summary %+v", s)
	}
	// The glob came first: it is the rule reported; the exact rule it shadows is not stale.
	if len(rep.Accepted) != 2 || rep.Accepted[0].AcceptedBy.Source != "base:1" || rep.Accepted[1].AcceptedBy.Source != "base:1" {
		t.Errorf("accepted %+v", rep.Accepted)
	}
	if len(rep.StaleAccepts) != 1 || rep.StaleAccepts[0].Key() != "MVP031:kas-a" {
		t.Errorf("stale %+v", rep.StaleAccepts)
	}

	var b bytes.Buffer
	if err := WriteBaseline(&b, rep, time.Date(2026, 11, 26, 23, 0, 0, 0, time.UTC), ""); err != nil {
		t.Fatal(err)
	}
	written := b.String()
	for _, want := range []string{"MVP011:x.k8s.io/*  # 2026-01-02 accepted\n", "# blocking: m1\nMVP010:batch/v1/jobs@a  # 2026-11-26 no reason given"} {
		if !strings.Contains(written, want) {
			t.Errorf("baseline lacks %q:\n%s", want, written)
		}
	}
	if strings.Contains(written, "MVP031") {
		t.Errorf("stale rule written:\n%s", written)
	}
	again, err := ParseAcceptFile(strings.NewReader(written), "written")
	if err != nil {
		t.Fatal(err)
	}
	rep = &Report{Findings: findings()}
	rep.accept(again)
	rep.summarize()
	if s := rep.Summary; s.Accepted != 3 || s.Stale != 0 || s.Result != "pass" {
		t.Errorf("with the written baseline: %+v", s)
	}
}

// TestUnavoidable: the windows no upgrade order avoids (first: servers that serve the GVR at
// the start; last: at the end).
func TestUnavoidable(t *testing.T) {
	for _, tc := range []struct {
		name        string
		first, last []string
		want        bool
	}{
		{"only one server serves it, before and after", []string{"b"}, []string{"b"}, true},
		{"the target removes it", []string{"a", "b", "c"}, nil, true},
		{"one server at the start, another at the end", []string{"a"}, []string{"b"}, false},
		{"two serve it, one after the upgrade", []string{"a", "b"}, []string{"a"}, false},
		{"new at the target on one server only", nil, []string{"a"}, true},
	} {
		if got := unavoidable(tc.first, tc.last); got != tc.want {
			t.Errorf("%s: unavoidable(%v, %v) = %v, want %v", tc.name, tc.first, tc.last, got, tc.want)
		}
	}
}

// TestOrderHint: for a window some order avoids, the fix names one: first a server that serves
// the GVR after its upgrade, while one that serves it before is still up.
func TestOrderHint(t *testing.T) {
	sim := &simulate.Simulation{Steps: []simulate.StepResult{{Servers: []route.ServerSummary{{Name: "a"}, {Name: "b"}, {Name: "c"}}}}}
	got := orderHint(sim, []string{"a"}, []string{"c"})
	if !strings.Contains(got, "upgrade c first (it serves it after its upgrade) while a still serves it: --order c,a,b") {
		t.Errorf("hint %q", got)
	}
}

// TestLegacyWindowRules: a baseline of per-server MVP010 keys (ID:GVR@SERVER) still accepts a
// per-GVR finding when its rules cover every server of the windows, and never otherwise; the
// report says how to rewrite them.
func TestLegacyWindowRules(t *testing.T) {
	start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}, {Name: "c", Version: "1.36"}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := simulate.UpgradePlan(start, "1.37", nil)
	for _, tc := range []struct {
		name         string
		rules        []string
		accepted     bool
		stale, notes int
	}{
		{"one rule a server, covering both", []string{"MVP010:new.k8s.io/v1/widgets@b", "MVP010:new.k8s.io/v1/widgets@c"}, true, 0, 2},
		{"a glob over servers", []string{"MVP010:new.k8s.io/v1/widgets@*"}, true, 0, 1},
		{"one server of two: not accepted, not stale", []string{"MVP010:new.k8s.io/v1/widgets@b"}, false, 0, 1},
		{"another GVR's: stale", []string{"MVP010:x.k8s.io/v1/things@b"}, false, 1, 1},
		{"the new form", []string{"MVP010:new.k8s.io/v1/widgets"}, true, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rules []AcceptRule
			for i, s := range tc.rules {
				r, err := ParseAcceptRule(s, fmt.Sprintf("base:%d", i+1))
				if err != nil {
					t.Fatal(err)
				}
				rules = append(rules, r)
			}
			rep, err := Run(t.Context(), Options{Start: start, Steps: steps, Target: "1.37", Accept: rules})
			if err != nil {
				t.Fatal(err)
			}
			accepted := false
			for _, a := range rep.Accepted {
				accepted = accepted || a.Key() == "MVP010:new.k8s.io/v1/widgets"
			}
			if accepted != tc.accepted || len(rep.StaleAccepts) != tc.stale || len(rep.AcceptNotes) != tc.notes {
				t.Errorf("accepted %v (want %v), stale %v (want %d), notes %q (want %d)", accepted, tc.accepted, rep.StaleAccepts, tc.stale, rep.AcceptNotes, tc.notes)
			}
		})
	}
}
