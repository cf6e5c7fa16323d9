package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestReadableOutput on a real pair — kas-a v1.36.3, kas-b v1.36.3 with batch/v1
// off, the peer proxy set up: explain's resource forms build the list request they say, in
// -n's namespace, and what mvpctl predicts for it is what each apiserver does with it;
// --group and -o name/csv on the live routes table; -n refused where it would be ignored;
// preflight's and traffic's table forms (checkTableForms).
func TestReadableOutput(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the v1.36 control plane")
	}
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	kc := cp.Kubeconfig

	// The live routes table, narrowed to batch: both its GVRs, one per line; as CSV.
	r := runMvpctl(t, "routes", "--kubeconfig", kc, "--group", "batch", "-o", "name")
	if r.Exit != 0 || string(r.Stdout) != "batch/v1/cronjobs\nbatch/v1/jobs\n" {
		t.Errorf("%s\nwant batch/v1/cronjobs and batch/v1/jobs", r)
	}
	r = runMvpctl(t, "routes", "--kubeconfig", kc, "--resource", "jobs.batch", "-o", "csv")
	if r.Exit != 0 || string(r.Stdout) != "NAME,KAS-A,KAS-B\nbatch/v1/jobs,local,proxy→kas-a\n" {
		t.Errorf("%s\nwant the jobs row as CSV", r)
	}
	// -n where the namespace changes nothing: refused before any request.
	if r := runMvpctl(t, "routes", "--kubeconfig", kc, "-n", "team-a"); r.Exit != 1 || !strings.Contains(string(r.Stderr), "-n/--namespace has no meaning") {
		t.Errorf("%s\nwant -n refused", r)
	}
	checkTableForms(t, kc)

	snap, _ := mvpctlSnapshot(t, t.TempDir()+"/pair.json", []int{0}, "--kubeconfig", kc)
	const want = "/apis/batch/v1/namespaces/team-a/jobs"
	var rows []string
	for _, form := range []string{"batch/v1/jobs", "jobs.batch", "jobs.v1.batch", "jobs", "Job"} {
		args := []string{"explain", "--snapshot", snap.Path, "-o", "json", "-n", "team-a", form}
		if form == "Job" {
			args = []string{"explain", "--snapshot", snap.Path, "-o", "json", "-n", "team-a", "--resource", form}
		}
		r := runMvpctl(t, args...)
		var e explainDoc
		var req struct {
			Request struct {
				Method string `json:"method"`
				Path   string `json:"path"`
			} `json:"request"`
		}
		if r.Exit != 0 || json.Unmarshal(r.Stdout, &e) != nil || json.Unmarshal(r.Stdout, &req) != nil {
			t.Errorf("%s\nwant an Explanation", r)
			continue
		}
		if req.Request.Method != "GET" || req.Request.Path != want {
			t.Errorf("%s: request %s %s, want GET %s", form, req.Request.Method, req.Request.Path, want)
			continue
		}
		for _, s := range []*harness.Server{cp.Server("kas-a"), cp.Server("kas-b")} {
			name := snapName(snap, s)
			var p *explainDecision
			for i := range e.Servers {
				if e.Servers[i].Server == name {
					p = &e.Servers[i]
				}
			}
			if p == nil {
				t.Errorf("%s: no decision for %s", form, name)
				continue
			}
			o := observeRoute(ctx, s, mvpRequest{Method: "GET", Path: want})
			if o.err != nil {
				t.Errorf("%s on %s: %v", want, name, o.err)
				continue
			}
			ok, note := agrees(*p, o)
			rows = append(rows, fmt.Sprintf("%-14s %-6s %-18s %-18s %-6s %s", form, name, p.text(), observedKey(o.obs)+" "+httpCodes(o), fmt.Sprint(ok), note))
			if !ok {
				t.Errorf("%s on %s: predicted %s, observed %s (%s)", form, name, p.text(), observedKey(o.obs), note)
			}
		}
	}
	t.Logf("explain -n team-a FORM: GET %s, predicted and observed:\n%-14s %-6s %-18s %-18s %-6s\n%s", want, "FORM", "SERVER", "PREDICTED", "OBSERVED", "AGREE", strings.Join(rows, "\n"))

	// kubectl's other names of a resource, from what the live snapshot recorded of the
	// servers' discovery: short names (cj; po from the core group's /api document),
	// singulars and kinds.
	for form, path := range map[string]string{"cj": "/apis/batch/v1/namespaces/team-a/cronjobs", "po": "/api/v1/namespaces/team-a/pods",
		"job": want, "Job": want, "cronjob.batch": "/apis/batch/v1/namespaces/team-a/cronjobs"} {
		r := runMvpctl(t, "explain", "--snapshot", snap.Path, "-o", "json", "-n", "team-a", form)
		var req struct {
			Request struct {
				Path string `json:"path"`
			} `json:"request"`
		}
		if r.Exit != 0 || json.Unmarshal(r.Stdout, &req) != nil || req.Request.Path != path {
			t.Errorf("%s\nwant GET %s", r, path)
		}
	}
}
