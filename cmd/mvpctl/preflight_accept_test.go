package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreflightBaseline: the shipped example's findings are windows no order avoids, for GVRs
// every apiserver answers today, so blocking without traffic; a reviewer accepts them:
// --write-baseline then a re-run exits 0 with them listed as accepted; a new risk after that
// fails again; a rule that matches nothing is stale.
func TestPreflightBaseline(t *testing.T) {
	skew, err := filepath.Abs("../../examples/skew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	goldenDir, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	// Relative names, so that the printed sources are the same in every run.
	t.Chdir(t.TempDir())
	base := "baseline"
	check := func(t *testing.T, wantCode int, goldenName string, args ...string) string {
		t.Helper()
		out, errOut, code := run(t, append([]string{"preflight", "--snapshot", skew, "--to", "1.37"}, args...)...)
		if code != wantCode {
			t.Fatalf("%v: exit %d, want %d; stderr: %s", args, code, wantCode, errOut)
		}
		if goldenName != "" {
			goldenFile(t, filepath.Join(goldenDir, goldenName), out)
		}
		return errOut
	}

	// Before: windows no order avoids, blocking since nothing says no client uses them, exit 3.
	check(t, ExitFindings, "preflight-skew-example.txt")

	// --write-baseline writes every finding, dated, and exits 0, which its result line says.
	errOut := check(t, ExitOK, "preflight-skew-write-baseline.txt", "--write-baseline", base, "--reason", "alpha/beta APIs only kas-b serves; accepted in review")
	if summary, err := os.ReadFile(filepath.Join(goldenDir, "preflight-skew-write-baseline.txt")); err != nil ||
		!strings.Contains(strings.Join(paragraphs(string(summary)), "\n"), "): exit 0: --write-baseline baseline accepts these findings (without it: exit 3 at --fail-on warning)") {
		t.Errorf("the result line does not say the run exits 0 (%v):\n%s", err, summary)
	}
	if !strings.Contains(errOut, "wrote "+base+": 21 finding(s) accepted (21 new: MVP011 ×21; 0 already accepted)") {
		t.Errorf("stderr: %q", errOut)
	}
	written, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, filepath.Join(goldenDir, "preflight-skew-baseline.txt"), string(written))

	// The re-run with it: nothing counts, everything is listed as accepted, exit 0.
	check(t, ExitOK, "preflight-skew-accepted.txt", "--baseline", base)

	// A new risk: a client of an API the target removes (MVP021, blocking) fails again.
	reqs := "requests.txt"
	if err := os.WriteFile(reqs, []byte("GET /apis/networking.k8s.io/v1beta1/servicecidrs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check(t, ExitFindings, "preflight-skew-new-risk.txt", "--baseline", base, "--requests", reqs)

	// Rewriting keeps the entries (date and reason) and adds the new risk.
	check(t, ExitOK, "", "--baseline", base, "--requests", reqs, "--write-baseline", base)
	rewritten, _ := os.ReadFile(base)
	if !strings.Contains(string(rewritten), "MVP021:networking.k8s.io/v1beta1/servicecidrs  # 2026-") ||
		!strings.Contains(string(rewritten), "MVP011:resource.k8s.io/v1beta2/resourceslices  # 2026-") ||
		strings.Count(string(rewritten), "accepted in review") != 21 {
		t.Errorf("rewritten baseline:\n%s", rewritten)
	}

	// A stale rule is reported, and does not change the result.
	stale := "stale"
	if err := os.WriteFile(stale, append(written, []byte("MVP010:batch/v1/jobs@kas-a  # 2025-01-02 once needed\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	check(t, ExitOK, "preflight-skew-stale.md", "--baseline", stale, "-o", "markdown")

	// JUnit: accepted findings are skipped cases named by their key, the rest fail.
	check(t, ExitFindings, "preflight-skew-ignore.xml", "--ignore", "MVP011:resource.k8s.io/*", "-o", "junit")
}

// TestPreflightAcceptSources: --ignore with a glob, .mvpctl-ignore read by default from the
// current directory, --baseline replacing it, --no-baseline reading neither; structured
// output keeps accepted findings apart.
func TestPreflightAcceptSources(t *testing.T) {
	skew, err := filepath.Abs("../../examples/skew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	args := []string{"preflight", "--snapshot", skew, "--to", "1.37", "-o", "json"}
	result := func(t *testing.T, extra ...string) (map[string]any, int) {
		t.Helper()
		out, errOut, code := run(t, append(args, extra...)...)
		var rep struct {
			Summary  map[string]any
			Accepted []struct {
				Check, Subject string
				AcceptedBy     struct{ Source string }
			}
			StaleAccepts []struct{ Check, Source string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v; stderr %s", extra, err, errOut)
		}
		s := rep.Summary
		s["sources"] = map[string]bool{}
		for _, a := range rep.Accepted {
			s["sources"].(map[string]bool)[a.AcceptedBy.Source] = true
		}
		s["staleRules"] = len(rep.StaleAccepts)
		return s, code
	}
	// 11 of the 21 findings are about resource.k8s.io.
	s, code := result(t, "--ignore", "MVP011:resource.k8s.io/*")
	if code != ExitFindings || s["accepted"] != 11.0 || s["blocking"] != 10.0 || !s["sources"].(map[string]bool)["--ignore"] {
		t.Errorf("--ignore glob: exit %d, summary %v", code, s)
	}
	if err := os.WriteFile(".mvpctl-ignore", []byte("# every unavoidable window\nMVP011  # 2026-11-01 accepted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, code = result(t)
	if code != ExitOK || s["accepted"] != 21.0 || !s["sources"].(map[string]bool)[".mvpctl-ignore:2"] {
		t.Errorf(".mvpctl-ignore: exit %d, summary %v", code, s)
	}
	// --ignore comes first: it is the rule reported; the file's rule still matches others.
	s, _ = result(t, "--ignore", "MVP011:resource.k8s.io/*")
	if src := s["sources"].(map[string]bool); !src["--ignore"] || !src[".mvpctl-ignore:2"] || s["staleRules"] != 0 {
		t.Errorf("both: %v", s)
	}
	if err := os.WriteFile("other", []byte("MVP031:kas-a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, code = result(t, "--baseline", "other")
	if code != ExitFindings || s["accepted"] != 0.0 || s["staleRules"] != 1 {
		t.Errorf("--baseline replaces .mvpctl-ignore: exit %d, summary %v", code, s)
	}
	s, code = result(t, "--no-baseline")
	if code != ExitFindings || s["accepted"] != 0.0 {
		t.Errorf("--no-baseline: exit %d, summary %v", code, s)
	}
}

// TestPreflightAcceptErrors: a malformed rule is one line naming the file and line (or the
// flag), exit 1, before anything is read or printed.
func TestPreflightAcceptErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("# ok\nMVP011:a/b/c\nMVP099:x  # typo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spaced := filepath.Join(dir, "spaced")
	if err := os.WriteFile(spaced, []byte("MVP010 kas-a batch/v1/jobs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	baseArgs := []string{"preflight", "--snapshot", "../../examples/skew.yaml", "--to", "1.37"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--baseline", bad}, "error: " + bad + `:3: "MVP099:x": unknown check "MVP099" (checks: MVP001, MVP002`},
		{[]string{"--baseline", spaced}, "error: " + spaced + `:1: "MVP010 kas-a batch/v1/jobs": want ID[:SUBJECT]`},
		{[]string{"--baseline", filepath.Join(dir, "nope")}, "error: baseline " + filepath.Join(dir, "nope") + ": cannot read it: no such file or directory"},
		{[]string{"--ignore", "mvp011"}, `error: --ignore "mvp011": unknown check "mvp011"`},
		{[]string{"--baseline", bad, "--no-baseline"}, "error: --baseline and --no-baseline: give one"},
		{[]string{"--reason", "why"}, "error: --reason goes with --write-baseline"},
		{[]string{"--write-baseline", filepath.Join(dir, "filtered"), "--group", "batch"}, "error: --write-baseline with --resource/--group would drop"},
		{[]string{"--write-baseline", filepath.Join(dir, "no", "such", "dir")}, "error: --write-baseline " + filepath.Join(dir, "no", "such", "dir") + ": "},
	} {
		out, errOut, code := run(t, append(baseArgs, tc.args...)...)
		if code != ExitError || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and one line starting %q", tc.args, code, errOut, tc.want)
		}
		if code == ExitError && out != "" && !strings.Contains(tc.args[0], "write") {
			t.Errorf("%v: printed a result before failing:\n%s", tc.args, out)
		}
	}
}
