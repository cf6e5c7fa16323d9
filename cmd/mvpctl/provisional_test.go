package main

import (
	"regexp"
	"strings"
	"testing"
)

// The rehearsals of the provisional 1.38: every report says "provisional" first and none exits
// 0; a replayed v1beta1 client blocks with its fix, traffic without one does not; the skew
// policy still refuses 1.36.
func TestProvisionalRehearsals(t *testing.T) {
	audit := absPath(t, "../../examples/audit.log.gz")
	requests := absPath(t, "testdata/requests.txt")
	plane := []string{"--servers", "a=1.37,b=1.37,c=1.37", "--runtime-config=resource.k8s.io/v1beta1=true", "--proxy=configured", "--to", "1.38"}
	with := func(cmd []string, extra ...string) []string {
		return append(append(append([]string(nil), cmd...), plane...), extra...)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		first string
		has   []string // each a substring, or a regular expression
	}{
		{"simulate upgrade", with([]string{"simulate", "upgrade"}), ExitIncomplete, "PROVISIONAL Kubernetes 1.38 is provisional",
			[]string{"proxy→b,c", "resource.k8s.io/v1beta1/resourceclaims"}},
		{"simulate upgrade, defaults", []string{"simulate", "upgrade", "--servers", "a=1.37,b=1.37,c=1.37", "--to", "1.38"}, ExitIncomplete, "PROVISIONAL Kubernetes 1.38 is provisional", nil},
		{"simulate run", []string{"simulate", "run", "--servers", "a=1.37,b=1.37,c=1.37", "--runtime-config=resource.k8s.io/v1beta1=true", "--step", "stop:a", "--step", "upgrade:a=1.38"},
			ExitIncomplete, "PROVISIONAL Kubernetes 1.38 is provisional", []string{`a: from local at step 0 to 404: 4 GVR\(s\)`, "resource.k8s.io/v1beta1/resourceclaims"}},
		{"preflight, a v1beta1 client", with([]string{"preflight"}, "--audit-log", audit, "-o", "wide"), ExitFindings, "PROVISIONAL Kubernetes 1.38 is provisional",
			[]string{"MVP021   blocking   resource.k8s.io/v1beta1/resourceclaims", "clients: mkexample (mvpctl test/e2e)", "move the client to resource.k8s.io/v1; or, for 1.38 only", "KUBE_APISERVER_SERVE_REMOVED_APIS_FOR_ONE_RELEASE=true"}},
		{"preflight, no v1beta1 client in a request list (no times, so no span: may break)", with([]string{"preflight"}, "--requests", requests), ExitFindings, "PROVISIONAL Kubernetes 1.38 is provisional", nil},
		{"preflight json", with([]string{"preflight"}, "--requests", requests, "-o", "json"), ExitFindings, "{", []string{`"provisional": [`, `"base": "v1.37.2"`, `k8s.io/kubernetes@v1.38.0-beta.0 h1:`}},
		{"preflight markdown", with([]string{"preflight"}, "--requests", requests, "-o", "markdown"), ExitFindings, "### mvpctl preflight", []string{"**Provisional:** Kubernetes 1.38 is provisional"}},
		{"profiles list", []string{"profiles", "list", "--no-headers"}, ExitOK, "v1.33.13", []string{`v1\.38\.0 +72 +2026-11-06 +embedded +PROVISIONAL \[2\]`, "derived by make profiles-provisional from the recorded v1.37.2 profile and the published k8s.io/api@v0.38.0-beta.0, k8s.io/apiserver@v0.38.0-beta.0, k8s.io/kubernetes@v1.38.0-beta.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, errOut)
			}
			if !strings.HasPrefix(out, tc.first) {
				t.Errorf("stdout starts %q, want %q", out[:min(len(out), 120)], tc.first)
			}
			for _, s := range tc.has {
				joined := strings.Join(paragraphs(out), "\n")
				if re, err := regexp.Compile(s); !strings.Contains(joined, s) && (err != nil || !re.MatchString(joined)) {
					t.Errorf("stdout lacks %q", s)
				}
			}
		})
	}
	out, errOut, code := run(t, "profiles", "show", "1.38", "--no-headers")
	if code != ExitIncomplete || !strings.Contains(errOut, "PROVISIONAL v1.38.0") || !strings.Contains(errOut, "profile v1.38.0 is provisional") || strings.Contains(out, "resource.k8s.io/v1beta1") {
		t.Errorf("profiles show 1.38: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = run(t, "simulate", "upgrade", "--servers", "a=1.36,b=1.37,c=1.37", "--to", "1.38")
	if code != ExitError || !strings.Contains(errOut, "a v1.36.3 → v1.38.0 skips a minor version") {
		t.Errorf("1.36 → 1.38: exit %d, stderr %q", code, errOut)
	}
}
