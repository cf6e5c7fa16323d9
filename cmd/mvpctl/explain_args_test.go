package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestExplainForms: every argument form explain accepts builds the request it says, -n
// places a namespaced list, and bad input names the forms accepted.
func TestExplainForms(t *testing.T) {
	const example = "../../examples/skew.yaml"
	for _, tc := range []struct {
		args     []string
		wantPath string // the request explained; "" for an error
		wantErr  string // in stderr
		wantNote string // in stderr
	}{
		{args: []string{"batch/v1/jobs"}, wantPath: "/apis/batch/v1/namespaces/default/jobs"},
		{args: []string{"jobs.batch"}, wantPath: "/apis/batch/v1/namespaces/default/jobs"},
		{args: []string{"jobs.v1.batch"}, wantPath: "/apis/batch/v1/namespaces/default/jobs"},
		{args: []string{"jobs"}, wantPath: "/apis/batch/v1/namespaces/default/jobs"},
		{args: []string{"Jobs.Batch"}, wantPath: "/apis/batch/v1/namespaces/default/jobs"},
		{args: []string{"pods"}, wantPath: "/api/v1/namespaces/default/pods"},
		{args: []string{"v1/pods"}, wantPath: "/api/v1/namespaces/default/pods"},
		{args: []string{"-n", "team-a", "batch/v1/jobs"}, wantPath: "/apis/batch/v1/namespaces/team-a/jobs"},
		{args: []string{"--namespace=team-a", "jobs.batch"}, wantPath: "/apis/batch/v1/namespaces/team-a/jobs"},
		// Cluster-scoped: no namespace, and a note when -n was given.
		{args: []string{"namespaces"}, wantPath: "/api/v1/namespaces"},
		{args: []string{"-n", "x", "clusterroles.rbac.authorization.k8s.io"}, wantPath: "/apis/rbac.authorization.k8s.io/v1/clusterroles", wantNote: "cluster-scoped: -n x does not apply"},
		// Several versions: the newest, said so.
		{args: []string{"resourceclaims.resource.k8s.io"}, wantPath: "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", wantNote: "the newest of the versions served (v1, v1beta2, v1beta1)"},
		{args: []string{"resourceclaims.v1beta1.resource.k8s.io"}, wantPath: "/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims"},
		// A GVR nobody serves is still explained (404 everywhere), scope unknown.
		{args: []string{"example.com/v1/widgets"}, wantPath: "/apis/example.com/v1/widgets", wantNote: "its scope is unknown"},
		// Filters choose the resource, or narrow the argument.
		{args: []string{"--group", "batch", "--resource", "jobs"}, wantPath: "/apis/batch/v1/namespaces/default/jobs"},
		{args: []string{"--resource", "Job"}, wantPath: "/apis/batch/v1/namespaces/default/jobs"},
		{args: []string{"--group", "batch"}, wantErr: "group batch selects 2 resources: batch/v1/cronjobs, batch/v1/jobs; name one"},
		{args: []string{"--group", "apps", "jobs"}, wantErr: `no reachable server serves "jobs" with group apps`},
		// kubectl's other names: short names and singulars from the recorded discovery, kinds.
		{args: []string{"cj"}, wantPath: "/apis/batch/v1/namespaces/default/cronjobs"},
		{args: []string{"Job"}, wantPath: "/apis/batch/v1/namespaces/default/jobs"},
		{args: []string{"cronjob.batch"}, wantPath: "/apis/batch/v1/namespaces/default/cronjobs"},
		{args: []string{"pod"}, wantPath: "/api/v1/namespaces/default/pods"},
		{args: []string{"--resource", "cj"}, wantPath: "/apis/batch/v1/namespaces/default/cronjobs"},
		// The example records no /api document: the core group's short names are unknown.
		{args: []string{"po"}, wantErr: "this snapshot records no /api discovery document, which holds the core group's short names; name the resource, e.g. pods"},
		// METHOD PATH as before.
		{args: []string{"GET", "/apis/batch/v1/namespaces/x/jobs"}, wantPath: "/apis/batch/v1/namespaces/x/jobs"},
		// Bad input: one line naming the forms.
		{args: nil, wantErr: "explain needs a resource or a request: explain takes a GVR (batch/v1/jobs"},
		{args: []string{"/apis/batch/v1/jobs"}, wantErr: `"/apis/batch/v1/jobs" is a path: give its method too (explain GET /apis/batch/v1/jobs)`},
		{args: []string{"GET"}, wantErr: "GET needs a PATH"},
		{args: []string{"jobz.batch"}, wantErr: `no reachable server serves "jobz.batch"`},
		{args: []string{"a/b/c/d"}, wantErr: `"a/b/c/d": want GROUP/VERSION/RESOURCE`},
		{args: []string{"-n", "x", "GET", "/api/v1/pods"}, wantErr: "-n sets the namespace of the list explain builds for a resource: with METHOD PATH the path names it"},
		{args: []string{"--group", "batch", "GET", "/api/v1/pods"}, wantErr: "with METHOD PATH the path names it"},
		{args: []string{"a", "b", "c"}, wantErr: "3 arguments: explain takes"},
	} {
		name := strings.Join(tc.args, " ")
		t.Run(name, func(t *testing.T) {
			args := append([]string{"explain", "--snapshot", example, "-o", "json"}, tc.args...)
			stdout, stderr, code := run(t, args...)
			if tc.wantErr != "" {
				if code != ExitError || !strings.Contains(stderr, tc.wantErr) || !strings.Contains(stderr, "explain takes") || strings.Count(stderr, "\n") != 1 {
					t.Fatalf("exit %d, stderr %q; want exit 1 and one line with %q and the forms", code, stderr, tc.wantErr)
				}
				return
			}
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var doc struct {
				Request struct {
					Path string `json:"path"`
				} `json:"request"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Request.Path != tc.wantPath {
				t.Errorf("request %s, want %s", doc.Request.Path, tc.wantPath)
			}
			if tc.wantNote != "" && !strings.Contains(stderr, "note: ") || !strings.Contains(stderr, tc.wantNote) {
				t.Errorf("stderr %q, want a note with %q", stderr, tc.wantNote)
			}
			if tc.wantNote == "" && stderr != "" {
				t.Errorf("unexpected stderr %q", stderr)
			}
		})
	}
}

// TestNamespaceRefused: -n on a command whose result the namespace does not change is an
// error, not ignored; explain and probe take it.
func TestNamespaceRefused(t *testing.T) {
	for _, args := range [][]string{
		{"routes", "--snapshot", skew, "-n", "x"},
		{"-n", "x", "simulate", "upgrade", "--servers", "a=1.36", "--to", "1.37"},
		{"preflight", "--servers", "a=1.36", "--to", "1.37", "--namespace", "x"},
	} {
		_, stderr, code := run(t, args...)
		if code != ExitError || !strings.Contains(stderr, "-n/--namespace has no meaning for") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	if _, stderr, code := run(t, "explain", "--snapshot", skew, "-n", "x", "jobs.batch"); code == ExitError {
		t.Errorf("explain -n: %s", stderr)
	}
}

// TestRoutesResourceOtherNames: --resource takes kubectl's short names, singulars and kinds
// in routes as in explain.
func TestRoutesResourceOtherNames(t *testing.T) {
	for _, arg := range []string{"cj", "cronjob", "CronJob", "cj.batch"} {
		stdout, stderr, code := run(t, "routes", "--snapshot", "../../examples/skew.yaml", "--resource", arg, "-o", "name")
		if code != ExitOK || stdout != "batch/v1/cronjobs\n" {
			t.Errorf("routes --resource %s: exit %d, %q, %q; want batch/v1/cronjobs", arg, code, stdout, stderr)
		}
	}
}

// TestExplainFailOn: --fail-on 404,503 makes explain exit 3 when some server answers one of
// them, and names the servers; other statuses are refused.
func TestExplainFailOn(t *testing.T) {
	const example = "../../examples/skew.yaml"
	notServed := []string{"GET", "/apis/certificates.k8s.io/v1beta1/podcertificaterequests"} // 404 on both
	for _, tc := range []struct {
		args     []string
		code     int
		inStderr string
	}{
		{append([]string{"--fail-on", "404,503"}, notServed...), ExitFindings, "explain: kas-a answers 404; kas-b answers 404 (--fail-on 404,503)"},
		{append([]string{"--fail-on", "404", "--apiserver", "kas-b"}, notServed...), ExitFindings, "explain: kas-b answers 404 (--fail-on 404)"},
		{append([]string{"--fail-on", "503"}, notServed...), ExitOK, ""},
		{append([]string{}, notServed...), ExitOK, ""},
		{[]string{"--fail-on", "404,503", "jobs.batch"}, ExitOK, ""}, // local on kas-a, proxied on kas-b
		{[]string{"--fail-on", "500", "jobs"}, ExitError, `--fail-on "500": want 404, 503 or both`},
		{[]string{"--fail-on", "blocking", "jobs"}, ExitError, `--fail-on "blocking"`},
	} {
		_, stderr, code := run(t, append([]string{"explain", "--snapshot", example, "-o", "name"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.inStderr) || (tc.inStderr == "" && stderr != "") {
			t.Errorf("explain %s: exit %d, stderr %q; want %d with %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.inStderr)
		}
	}
}

// TestExplainResultMayAnswer: an outcome a server may also give (a random peer choice, a
// crash window) counts for --fail-on, said as "may".
func TestExplainResultMayAnswer(t *testing.T) {
	snap := snapshot.New()
	e := route.Explanation{Servers: []route.Decision{
		{Server: "a", Outcome: mvp.Proxied, AlsoAnswers: []mvp.Answer{{Outcome: mvp.Unavailable, Unavailable: mvp.Transport}}},
		{Server: "b", Outcome: mvp.Local},
	}}
	for _, tc := range []struct {
		failOn []int
		code   int
		msg    string
	}{
		{[]int{503}, ExitFindings, "explain: a may answer 503 (unavailable/transport) (--fail-on 503)"},
		{[]int{404}, ExitOK, ""},
		{nil, ExitOK, ""},
	} {
		err := explainResult(e, tc.failOn, snap, false)
		if exitCode(err) != tc.code || (err != nil && err.Error() != tc.msg) {
			t.Errorf("--fail-on %v: %v (exit %d); want exit %d %q", tc.failOn, err, exitCode(err), tc.code, tc.msg)
		}
	}
}
