package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
)

// fixedNow is the clock of in-process runs, so golden files do not change with the time.
var fixedNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

var update = flag.Bool("update", false, "rewrite the golden files")

// run executes mvpctl in-process with injected streams.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(args, &globalOptions{streams: Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		configFlags: kubeflags.New(), clock: func() time.Time { return fixedNow }})
	return out.String(), errOut.String(), code
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenFile(t, filepath.Join("testdata", "golden", name), got)
}

// goldenFile compares got with the file at path, or rewrites it with -update.
func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `make golden` to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run `make golden` if the change is intended)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

const (
	skew       = "testdata/snapshots/skew.yaml"
	aggregated = "testdata/snapshots/aggregated.yaml"
)

func TestGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
		code   int
	}{
		{"routes.txt", []string{"routes", "--snapshot", skew}, ExitIncomplete},
		{"routes-wide.txt", []string{"routes", "--snapshot", skew, "-o", "wide"}, ExitIncomplete},
		{"routes-all.txt", []string{"routes", "--snapshot", skew, "--all", "--no-headers"}, ExitIncomplete},
		{"routes.json", []string{"routes", "--snapshot", skew, "-o", "json"}, ExitIncomplete},
		{"routes.yaml", []string{"routes", "--snapshot", skew, "-o", "yaml"}, ExitIncomplete},
		{"explain-jobs.txt", []string{"explain", "--snapshot", skew, "GET", "/apis/batch/v1/namespaces/default/jobs"}, ExitIncomplete},
		{"explain-jobs.json", []string{"explain", "--snapshot", skew, "-o", "json", "GET", "/apis/batch/v1/namespaces/default/jobs"}, ExitIncomplete},
		{"explain-header.yaml", []string{"explain", "--snapshot", skew, "--apiserver", "kas-b", "--header-proxied", "-o", "yaml", "GET", "/apis/batch/v1/jobs?watch=1"}, ExitOK},
		{"explain-inferred.txt", []string{"explain", "--snapshot", skew, "--apiserver", "kas-b", "GET", "/apis/storage.k8s.io/v1beta2/volumeattributesclasses"}, ExitOK},
		{"explain-table.txt", []string{"explain", "--snapshot", skew, "-o", "table", "POST", "/apis/example.com/v1/namespaces/x/widgets"}, ExitIncomplete},
		// Right after a crash: every coming switch, with its bounds or trigger.
		{"explain-crash.txt", []string{"explain", "--snapshot", "testdata/snapshots/crash.yaml", "GET", "/apis/batch/v1/namespaces/default/jobs"}, ExitIncomplete},
		{"explain-crash.yaml", []string{"explain", "--snapshot", "testdata/snapshots/crash.yaml", "-o", "yaml", "GET", "/apis/batch/v1/namespaces/default/jobs"}, ExitIncomplete},
		// The README's example: a real snapshot of a v1.37.1 and a v1.36.3 apiserver.
		{"routes-example.txt", []string{"routes", "--snapshot", "../../examples/skew.yaml"}, ExitOK},
		{"explain-example.json", []string{"explain", "--snapshot", "../../examples/skew.yaml", "-o", "json", "GET", "/apis/resource.k8s.io/v1beta1/resourceclaims"}, ExitOK},
		// explain for people: the answer first, rules with their versions; --why-not and
		// --verbose (the apiserver's own terms).
		{"explain-example.txt", []string{"explain", "--snapshot", "../../examples/skew.yaml", "GET", "/apis/resource.k8s.io/v1beta1/resourceclaims"}, ExitOK},
		{"explain-why-not.txt", []string{"explain", "--snapshot", skew, "--apiserver", "kas-b", "--why-not", "GET", "/apis/storage.k8s.io/v1beta2/volumeattributesclasses"}, ExitOK},
		{"explain-why-not-example.txt", []string{"explain", "--snapshot", "../../examples/skew.yaml", "--why-not", "GET", "/apis/certificates.k8s.io/v1beta1/podcertificaterequests"}, ExitOK},
		{"explain-why-not-table.txt", []string{"explain", "--snapshot", skew, "-o", "table", "--why-not", "POST", "/apis/example.com/v1/namespaces/x/widgets"}, ExitIncomplete},
		// Pictures: the request's path, and the routing table, as Mermaid and DOT.
		{"explain-example.mmd", []string{"explain", "--snapshot", "../../examples/skew.yaml", "-o", "mermaid", "GET", "/apis/resource.k8s.io/v1beta1/resourceclaims"}, ExitOK},
		{"explain-example.dot", []string{"explain", "--snapshot", "../../examples/skew.yaml", "-o", "dot", "GET", "/apis/resource.k8s.io/v1beta1/resourceclaims"}, ExitOK},
		{"routes-example.mmd", []string{"routes", "--snapshot", "../../examples/skew.yaml", "-o", "mermaid"}, ExitOK},
		{"routes-example.dot", []string{"routes", "--snapshot", "../../examples/skew.yaml", "-o", "dot"}, ExitOK},
		// The upgrade as a timeline: the crash's two phases share their 503 box.
		{"simulate-timeline-crash.mmd", []string{"simulate", "run", "--scenario", "testdata/scenario-crash.yaml", "-o", "mermaid"}, ExitOK},
		{"simulate-timeline-crash.dot", []string{"simulate", "run", "--scenario", "testdata/scenario-crash.yaml", "-o", "dot"}, ExitOK},
		{"preflight-timeline-1.35-1.36.dot", []string{"preflight", "--servers", "a=1.35,b=1.35", "--to", "1.36", "-o", "dot"}, ExitIncomplete},
		{"explain-unavailable.dot", []string{"explain", "--snapshot", skew, "-o", "dot", "GET", "/apis/storage.k8s.io/v1beta2/volumeattributesclasses"}, ExitIncomplete},
		{"explain-verbose.txt", []string{"explain", "--snapshot", skew, "--verbose", "GET", "/apis/batch/v1/namespaces/default/jobs"}, ExitIncomplete},
		// From the real profiles (make profiles): a three-server rolling upgrade 1.36 → 1.37.
		{"simulate-upgrade-1.36-1.37.txt", []string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--requests", "testdata/requests.txt"}, ExitOK},
		// The same servers as kube-apiserver starts them by default (no --peer-ca-file): nothing
		// is proxied, and the report says what it assumed first.
		{"simulate-upgrade-1.36-1.37-default.txt", []string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36,c=1.36", "--to", "1.37"}, ExitIncomplete},
		{"simulate-upgrade-skew-example.txt", []string{"simulate", "upgrade", "--snapshot", "../../examples/skew.yaml", "--to", "1.37"}, ExitOK},
		// docs/simulate.md and docs/discovery.md: the shipped audit log replayed on the example,
		// and the example's recorded /apis documents checked.
		{"simulate-upgrade-skew-audit-example.txt", []string{"simulate", "upgrade", "--snapshot", "../../examples/skew.yaml", "--to", "1.37", "--audit-log", "../../examples/audit.log.gz"}, ExitOK},
		// Two servers' own audit logs, joined: what kas-b (no batch/v1) proxied to kas-a.
		{"preflight-skew-audit-join.txt", []string{"preflight", "--snapshot", "../../examples/skew.yaml", "--to", "1.37", "--audit-log", "kas-a=testdata/audit-kas-a.log", "--audit-log", "kas-b=testdata/audit-kas-b.log"}, ExitFindings},
		{"simulate-upgrade-skew-audit-join.txt", []string{"simulate", "upgrade", "--snapshot", "../../examples/skew.yaml", "--to", "1.37", "--audit-log", "kas-b=testdata/audit-kas-b.log", "--audit-log", "kas-a=testdata/audit-kas-a.log"}, ExitOK},
		{"discovery-diff-example.txt", []string{"discovery", "diff", "--snapshot", "../../examples/skew.yaml"}, ExitOK},
		{"simulate-scenario-crash.txt", []string{"simulate", "run", "--scenario", "testdata/scenario-crash.yaml"}, ExitOK},
		// The lifecycle table, asked directly.
		{"apis-removed-in-1.37.txt", []string{"apis", "--removed-in", "1.37"}, ExitOK},
		{"apis-removed-in-1.22-name.txt", []string{"apis", "--removed-in", "1.22", "-o", "name"}, ExitOK},
		{"apis-deprecated-at-1.37-no-headers.txt", []string{"apis", "--deprecated", "--at", "1.37", "--no-headers"}, ExitOK},
		{"apis-replacement-pdb.json", []string{"apis", "--replacement-for", "policy/v1beta1/poddisruptionbudgets", "-o", "json"}, ExitOK},
		{"apis-replacement-pdb-wide.txt", []string{"apis", "--replacement-for", "policy/v1beta1 PodDisruptionBudget", "-o", "wide"}, ExitOK},
		// Objects of removed, misspelt and unknown APIs in one file: each a finding with its
		// release and replacement, or the closest spelling; the same objects of served APIs pass.
		{"preflight-manifests-removed.txt", []string{"preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--manifests", "testdata/manifests/old.yaml"}, ExitFindings},
		{"preflight-manifests-removed-wide.txt", []string{"preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--manifests", "testdata/manifests/old.yaml", "-o", "wide"}, ExitFindings},
		{"preflight-manifests-removed.md", []string{"preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--manifests", "testdata/manifests/old.yaml", "-o", "markdown"}, ExitFindings},
		{"preflight-manifests-removed.xml", []string{"preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--manifests", "testdata/manifests/old.yaml", "-o", "junit"}, ExitFindings},
		{"preflight-manifests-served.txt", []string{"preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--manifests", "testdata/manifests/good.yaml"}, ExitOK},
		// A directory with a file that does not parse, a README and a Helm template beside 5
		// good files: a partial read, each named; the good files' objects judged.
		{"preflight-manifests-dir.txt", []string{"preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--manifests", "testdata/manifests/dir"}, ExitIncomplete},
		{"preflight-1.36-1.37.txt", []string{"preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--requests", "testdata/requests.txt"}, ExitIncomplete},
		// Default 1.35 servers (gate off by default): the GVRs new in 1.36 have a 404 window, a
		// warning: no client could use them before the upgrade.
		{"preflight-1.35-1.36-default.txt", []string{"preflight", "--servers", "a=1.35,b=1.35", "--to", "1.36"}, ExitIncomplete},
		{"preflight-skew-example.md", []string{"preflight", "--snapshot", "../../examples/skew.yaml", "--to", "1.37", "-o", "markdown"}, ExitFindings},
		{"preflight-crash.md", []string{"preflight", "--scenario", "testdata/scenario-crash.yaml", "-o", "markdown"}, ExitFindings},
		{"preflight-crash.xml", []string{"preflight", "--scenario", "testdata/scenario-crash.yaml", "-o", "junit"}, ExitFindings},
		{"preflight-clean.json", []string{"preflight", "--servers", "a=1.37,b=1.37", "--proxy", "configured", "--to", "1.37", "-o", "json"}, ExitOK},
		// An aggregated APIService whose backend died, and one whose Service is missing
		// (docs/behaviour.md §16): every server's own aggregator answers 503, never a 404.
		{"routes-aggregated.txt", []string{"routes", "--snapshot", aggregated}, ExitOK},
		{"explain-aggregated.txt", []string{"explain", "--snapshot", aggregated, "--why-not", "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"}, ExitOK},
		{"preflight-aggregated.txt", []string{"preflight", "--snapshot", aggregated, "--to", "1.37"}, ExitIncomplete},
		{"profiles-list.txt", []string{"profiles", "list"}, ExitOK},
		// --no-headers drops the header row of every table, and nothing else.
		{"explain-table-no-headers.txt", []string{"explain", "--snapshot", skew, "-o", "table", "--no-headers", "POST", "/apis/example.com/v1/namespaces/x/widgets"}, ExitIncomplete},
		{"simulate-upgrade-1.36-1.37-no-headers.txt", []string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--requests", "testdata/requests.txt", "--no-headers"}, ExitOK},
		{"preflight-1.36-1.37-no-headers.txt", []string{"preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--requests", "testdata/requests.txt", "--no-headers"}, ExitIncomplete},
		{"profiles-list-no-headers.txt", []string{"profiles", "list", "--no-headers"}, ExitOK},
		{"profiles-show-1.34-no-headers.txt", []string{"profiles", "show", "1.34", "--no-headers"}, ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tt.code, errOut)
			}
			if tt.code == ExitIncomplete && (tt.args[0] == "routes" || tt.args[0] == "explain") && !strings.Contains(errOut, "warning: partial result: kas-c") {
				t.Errorf("stderr does not name the unreachable server: %q", errOut)
			}
			golden(t, tt.golden, out)
		})
	}
}

func TestInputErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"routes", "--snapshot", "testdata/snapshots/wrong-version.yaml"}, `wrong-version.yaml: apiVersion: got "mvpctl.io/v1", want "mvpctl.io/v1alpha2" (or mvpctl.io/v1alpha1, converted on read)`},
		{[]string{"routes", "--snapshot", "testdata/snapshots/wrong-kind.yaml"}, `wrong-kind.yaml: kind: got "RoutingTable"`},
		{[]string{"routes", "--snapshot", "testdata/snapshots/duplicate-server.yaml"}, `servers[1].name: duplicate server "kas-a"`},
		{[]string{"routes", "--snapshot", "testdata/snapshots/no-version.yaml"}, `servers[0] (kas-a).resources[1].version: must be set`},
		{[]string{"routes", "--snapshot", "testdata/snapshots/truncated.yaml"}, `truncated.yaml: not a complete document (truncated?)`},
		{[]string{"routes", "--snapshot", "testdata/snapshots/truncated.json"}, `truncated.json: not a complete document (truncated?)`},
		{[]string{"routes", "--snapshot", "testdata/snapshots/html.yaml"}, `html.yaml: not a YAML or JSON document`},
		{[]string{"routes", "--snapshot", "testdata/snapshots/unknown-field.yaml"}, `unknown field "reachabel"`},
		{[]string{"routes", "--snapshot", "testdata/snapshots/missing.yaml"}, `missing.yaml: no such file or directory`},
		{[]string{"routes", "--snapshot", "testdata/snapshots/all-down.yaml"}, `no apiserver could be read (kas-a: GET https://127.0.0.1:17443/version: connection refused)`},
		{[]string{"explain", "--snapshot", "testdata/snapshots/all-down.yaml", "GET", "/api/v1/pods"}, `no apiserver could be read (kas-a: GET https://127.0.0.1:17443/version: connection refused): the snapshot holds no evidence to work from; take a new one`},
		{[]string{"routes", "--snapshot", skew, "-o", "xml"}, `unknown output format "xml" for "mvpctl routes": want one of table|wide|name|jsonpath=TEMPLATE|csv|json|yaml`},
		{[]string{"explain", "--snapshot", skew, "GET", "/foo"}, `"/foo" is not a Kubernetes API path`},
		{[]string{"explain", "--snapshot", skew, "FETCH", "/api/v1/pods"}, `"FETCH" is not an HTTP method`},
		{[]string{"explain", "--snapshot", skew, "GET"}, `GET needs a PATH (explain GET /api/v1/namespaces/default/pods): explain takes a GVR (batch/v1/jobs, v1/pods)`},
		{[]string{"explain", "--snapshot", skew, "--apiserver", "kas-z", "GET", "/api/v1/pods"}, `no server "kas-z" in the snapshot (servers: kas-a, kas-b, kas-c)`},
		{[]string{"explain", "--snapshot", skew, "--apiserver", "kas-c", "GET", "/api/v1/pods"}, `server "kas-c" was not reachable`},
		{[]string{"version", "-o", "table"}, `unknown output format "table" for "mvpctl version": want one of text|json|yaml`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36", "--to", "1.99"}, `no profile for Kubernetes 1.99: mvpctl has profiles for v1.33.13, v1.34.4, v1.35.4, v1.36.3, v1.37.2`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36"}, `simulate upgrade needs --to VERSION`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36", "--to", "1.37", "--steps", "some"}, `--steps "some": want changed or all`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.34,b=1.34", "--to", "1.37"}, `a v1.34.4 → v1.37.2 skips a minor version; b v1.34.4 → v1.37.2 skips a minor version; pass --allow-skew`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36", "--to", "1.35"}, `a v1.36.3 → v1.35.4 is a downgrade; b v1.36.3 → v1.35.4 is a downgrade`},
		{[]string{"preflight", "--servers", "a=1.35,b=1.37", "--to", "1.37"}, `at the start, the control plane is outside the version-skew policy: b (v1.37.2) and a (v1.35.4) are more than one minor version apart`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36", "--proxy", "maybe", "--to", "1.37"}, `--proxy: proxy setup "maybe": want default, configured or off`},
		{[]string{"simulate", "run", "--servers", "a=1.36", "--step", "reboot:a"}, `--step "reboot:a": action: "reboot" is not one of`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36", "--snapshot", skew, "--to", "1.37"}, `give one of --servers and --snapshot`},
		{[]string{"preflight", "--servers", "a=1.36"}, `preflight needs --to VERSION or --scenario FILE`},
		{[]string{"preflight", "--servers", "a=1.36", "--to", "1.37", "--fail-on", "sometimes"}, `--fail-on "sometimes": want one of warning|blocking|never`},
		{[]string{"preflight", "--servers", "a=1.36", "--to", "1.37", "--audit-log", "testdata/nope.log"}, `traffic testdata/nope.log: no such file or directory`},
		{[]string{"profiles", "show", "1.20"}, `no profile for Kubernetes 1.20`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36", "--to", "1.37", "--audit-log", "kas-a="}, `--audit-log "kas-a=": want FILE or SERVER=FILE`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36", "--to", "1.37", "--audit-log", "=testdata/audit-kas-a.log"}, `--audit-log "=testdata/audit-kas-a.log": want FILE or SERVER=FILE`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36", "--to", "1.37", "--audit-log", "nosuch=testdata/audit-kas-a.log"}, `--audit-log "nosuch=testdata/audit-kas-a.log": no apiserver "nosuch" in the control plane (apiservers: a)`},
		{[]string{"simulate", "upgrade", "--snapshot", skew, "--to", "1.37", "--proxy", "weird"}, `--proxy sets up servers started from profiles (--servers, or a scenario's from.servers); a snapshot or a live cluster says how each server is set up: drop --proxy`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36", "--to", "1.37", "--audit-log", "a=testdata/audit-kas-a.log", "--requests", "testdata/requests.txt"}, `give one of --requests and --audit-log`},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36", "--to", "1.37", "--audit-log", "a=testdata/audit-kas-a.log", "--audit-log", "b=testdata/nope.log"}, `traffic testdata/nope.log: no such file or directory`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != ExitError {
				t.Errorf("exit code %d, want %d", code, ExitError)
			}
			if out != "" {
				t.Errorf("stdout should be empty on error, got %q", out)
			}
			if !strings.HasPrefix(errOut, "error: ") || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr = %q, want one line mentioning %q", errOut, tt.want)
			}
		})
	}
}

func TestSnapshotFromStdin(t *testing.T) {
	data, err := os.ReadFile(skew)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Execute([]string{"routes", "--snapshot", "-", "-o", "json"}, Streams{In: bytes.NewReader(data), Out: &out, ErrOut: &errOut})
	if code != ExitIncomplete || !strings.Contains(out.String(), `"kind": "RoutingTable"`) {
		t.Errorf("code %d, out %q, err %q", code, out.String(), errOut.String())
	}
}

func TestVersion(t *testing.T) {
	out, _, code := run(t, "version", "-o", "json")
	if code != 0 || !strings.Contains(out, `"kind": "Version"`) || !strings.Contains(out, `"snapshotFormat": "mvpctl.io/v1alpha2"`) {
		t.Errorf("code %d, out %s", code, out)
	}
	text, _, code := run(t, "version")
	noHeaders, _, _ := run(t, "version", "--no-headers")
	if code != 0 || !strings.HasPrefix(text, "Client Version: ") || noHeaders != text {
		t.Errorf("version: code %d, %q; with --no-headers (no table: no change) %q", code, text, noHeaders)
	}
	// The embedded profiles, as profiles list names them.
	if !strings.Contains(out, `"profiles": [
    "v1.33.13",`) {
		t.Errorf("version -o json does not list the profiles: %s", out)
	}
	if !strings.Contains(text, "\nProfiles: v1.33.13, v1.34.4, ") {
		t.Errorf("version does not list the profiles: %q", text)
	}
	out, _, _ = run(t, "completion", "bash")
	if !strings.Contains(out, "__start_mvpctl") {
		t.Error("bash completion does not define __start_mvpctl")
	}
}

// Snapshots that today's mvpctl rejects on load: each a variant of skew.yaml written to a
// temporary file, so the error names that file.
func TestSnapshotLoadRejects(t *testing.T) {
	data, err := os.ReadFile(skew)
	if err != nil {
		t.Fatal(err)
	}
	skewYAML := string(data)
	for _, tc := range []struct {
		name, content, want string
	}{
		{"two documents", skewYAML + "---\n" + skewYAML, "more than one document (a second one starts at line "},
		{"major version 2", strings.Replace(skewYAML, "version: v1.37.1", "version: v2.0.0", 1),
			`servers[0] (kas-a).version: "v2.0.0" is Kubernetes 2.x`},
		{"emulatedVersion banana", strings.Replace(skewYAML, "version: v1.37.1", "version: v1.37.1\n  emulatedVersion: banana", 1),
			`servers[0] (kas-a).emulatedVersion: "banana" is not a Kubernetes version`},
		{"escape sequence in a name", strings.Replace(skewYAML, "- name: kas-a", `- name: "kas-a\e]0;pwned\a"`, 1),
			`servers[0].name: "kas-a\x1b]0;pwned\a" holds the control character '\x1b'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := run(t, "routes", "--snapshot", path)
			if code != ExitError || !strings.Contains(errOut, "snapshot "+path+": "+tc.want) || strings.Count(errOut, "\n") != 1 || strings.Contains(errOut, "\x1b") {
				t.Errorf("code %d, stderr %q, want one line with %q", code, errOut, tc.want)
			}
		})
	}
}

// docs/usage.md shows explain's Mermaid picture as it is printed.
func TestUsageMermaid(t *testing.T) {
	readme, err := os.ReadFile("../../docs/usage.md")
	if err != nil {
		t.Fatal(err)
	}
	mmd, err := os.ReadFile(filepath.Join("testdata", "golden", "explain-example.mmd"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```mermaid\n"+string(mmd)+"```") {
		t.Error("docs/usage.md's mermaid block differs from testdata/golden/explain-example.mmd: copy it over")
	}
}
