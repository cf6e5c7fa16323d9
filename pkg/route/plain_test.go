package route

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The plain form of a decision: the answer first, the rules with their versions, and what
// would make a 404 or 503 succeed, from the decision's data.
func TestPlain(t *testing.T) {
	jobs := "/apis/batch/v1/namespaces/default/jobs"
	noCA := func(s *snapshot.Server) { s.PeerProxy.FilterInstalled = snapshot.Ptr(false) }
	tests := []struct {
		name     string
		snap     *snapshot.Snapshot
		server   string
		path     string
		capable  func(string, snapshot.GVR) (bool, bool)
		answer   string
		stepHas  string
		whyNotHa string
	}{
		{name: "proxied", snap: snap(server("a", "v1.37.1", all...), server("b", "v1.36.3", noBatch...)), server: "b", path: jobs,
			answer: "proxied to a — b does not serve batch/v1 itself; a does", stepHas: "x-kubernetes-peer-proxied: true"},
		{name: "local", snap: snap(server("a", "v1.37.1", all...), server("b", "v1.36.3", noBatch...)), server: "a", path: jobs,
			answer: "served locally — a serves batch/v1/jobs itself", stepHas: "(1.33+)"},
		{name: "no --peer-ca-file", snap: snap(server("a", "v1.37.1", all...), with(server("c", "v1.36.3", noBatch...), noCA)), server: "c", path: jobs,
			answer:  "404 Not Found — c's proxy filter is not installed (no --peer-ca-file); c does not serve batch/v1 itself",
			stepHas: "--peer-ca-file is not set (1.28+)", whyNotHa: "set --peer-ca-file on c so its proxy filter is installed"},
		{name: "nobody serves it, a profile says who could", snap: snap(server("a", "v1.37.1", all...), server("b", "v1.36.3", noBatch...)), server: "b",
			path:    "/apis/resource.k8s.io/v1beta1/resourceclaims",
			capable: func(v string, g snapshot.GVR) (bool, bool) { return v == "v1.37.1", true },
			answer:  "404 Not Found — no apiserver serves resource.k8s.io/v1beta1/resourceclaims", whyNotHa: "a would serve it with --runtime-config=resource.k8s.io/v1beta1=true"},
		{name: "peer down: 503", snap: snap(withAggregated(server("a", "v1.37.1", noBatch...), "apps/v1/deployments", "batch/v1/jobs"), down(server("b", "v1.37.1", all...), false)), server: "a", path: jobs,
			answer: "503 Service Unavailable — b serves batch/v1, but its address cannot be resolved", whyNotHa: "bring b back up"},
		{name: "peer not reachable: transport 503", snap: snap(withAggregated(server("a", "v1.37.1", noBatch...), "apps/v1/deployments", "batch/v1/jobs"), down(server("b", "v1.37.1", all...), true)), server: "a", path: jobs,
			answer: "503 Service Unavailable — b serves batch/v1, but does not answer at its address", whyNotHa: "make b's advertised address 127.0.0.1:6443 reachable from a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseRequest("GET", tt.path)
			if err != nil {
				t.Fatal(err)
			}
			r := NewRouter(tt.snap)
			if tt.capable != nil {
				r.WithCapabilities(tt.capable)
			}
			d, err := r.Decide(tt.server, req)
			if err != nil {
				t.Fatal(err)
			}
			if d.Plain.Answer != tt.answer {
				t.Errorf("answer %q, want %q", d.Plain.Answer, tt.answer)
			}
			checkPlain(t, d)
			var steps []string
			for _, s := range d.Plain.Steps {
				steps = append(steps, s.String())
			}
			if tt.stepHas != "" && !strings.Contains(strings.Join(steps, "\n"), tt.stepHas) {
				t.Errorf("no step has %q:\n%s", tt.stepHas, strings.Join(steps, "\n"))
			}
			whyNot := strings.Join(d.Plain.WhyNot, "\n")
			if tt.whyNotHa != "" && !strings.Contains(whyNot, tt.whyNotHa) {
				t.Errorf("why-not %q does not have %q", whyNot, tt.whyNotHa)
			}
		})
	}
}

// Version thresholds live in pkg/mvp only: no string in this package names a minor version.
func TestNoMinorVersionInStrings(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	literal := regexp.MustCompile(`"[^"\n]*\b1\.[1-9][0-9]\b[^"\n]*"`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range literal.FindAllString(string(data), -1) {
			t.Errorf("%s: %s names a Kubernetes minor version: ask pkg/mvp (mvp.Rule.Versions)", f, m)
		}
	}
}

var (
	eraWord      = regexp.MustCompile(`\bera\b|DISC|\bSV2?\b`)
	ruleVersions = regexp.MustCompile(`\((1\.\d\d(\+|–1\.\d\d)?|before 1\.\d\d)\)$`)
)

// checkPlain holds for every decision: an answer that starts with what the client gets, rule
// steps that name their versions and no era, and a why-not exactly for a 404 or 503.
func checkPlain(t *testing.T, d Decision) {
	t.Helper()
	what, why := d.Plain.Split()
	if what == "" || why == "" {
		t.Errorf("plain answer %q is not \"what — why\"", d.Plain.Answer)
	}
	wantPrefix := map[mvp.Outcome]string{mvp.Local: "served locally", mvp.Proxied: "proxied to ", mvp.NotFound: "404 Not Found", mvp.Unavailable: "503 Service Unavailable"}[d.Outcome]
	if !strings.HasPrefix(what, wantPrefix) {
		t.Errorf("plain answer %q for outcome %s, want it to start with %q", d.Plain.Answer, d.Outcome, wantPrefix)
	}
	for _, s := range d.Plain.Steps {
		if s.Rule != "" && !ruleVersions.MatchString(s.String()) {
			t.Errorf("step %q names no version", s)
		}
		if eraWord.MatchString(s.String()) {
			t.Errorf("step %q speaks the implementation", s)
		}
	}
	if eraWord.MatchString(d.Plain.Answer) {
		t.Errorf("answer %q speaks the implementation", d.Plain.Answer)
	}
	if (d.Status == nil) != (len(d.Plain.WhyNot) == 0) {
		t.Errorf("status %v but why-not %q", d.Status, d.Plain.WhyNot)
	}
}
