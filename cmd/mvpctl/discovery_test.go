package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// discoveryCapture holds what test/e2e TestDiscovery recorded on real kube-apiservers
// (pkg/peerdiscovery/testdata/README.md): v1.36.3 kas-a (every API), v1.36.3 kas-b (batch/v1
// off), v1.37.1 kas-c; "steady" with all three peered, "stale" with only kas-b left after the
// others stopped gracefully.
const discoveryCapture = "../../pkg/peerdiscovery/testdata/v1.36.3-v1.37.1/"

func gunzipCapture(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(discoveryCapture + name + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// discoverySnapshot is the path of a captured snapshot (snapshots may be gzip-compressed).
func discoverySnapshot(t *testing.T, name string) string {
	t.Helper()
	return discoveryCapture + name + ".snapshot.json.gz"
}

func TestDiscoveryGolden(t *testing.T) {
	steady, stale := discoverySnapshot(t, "steady"), discoverySnapshot(t, "stale")
	tests := []struct {
		golden string
		args   []string
		code   int
	}{
		{"discovery-expected-kas-b.txt", []string{"discovery", "expected", "--snapshot", steady, "--apiserver", "kas-b"}, ExitOK},
		{"discovery-expected-stale.txt", []string{"discovery", "expected", "--snapshot", stale, "--no-headers"}, ExitOK},
		{"discovery-diff-steady.txt", []string{"discovery", "diff", "--snapshot", steady}, ExitOK},
		{"discovery-diff-stale.txt", []string{"discovery", "diff", "--snapshot", stale}, ExitFindings},
		{"discovery-diff-stale-no-headers.txt", []string{"discovery", "diff", "--snapshot", stale, "--no-headers"}, ExitFindings},
		{"discovery-diff-stale.json", []string{"discovery", "diff", "--snapshot", stale, "-o", "json"}, ExitFindings},
		{"discovery-diff-stale.yaml", []string{"discovery", "diff", "--snapshot", stale, "-o", "yaml"}, ExitFindings},
		// A snapshot without recorded documents (older mvpctl): reported, not guessed.
		{"discovery-diff-skew.txt", []string{"discovery", "diff", "--snapshot", skew}, ExitIncomplete},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tt.code, errOut)
			}
			switch tt.code {
			case ExitFindings:
				if errOut != "error: discovery diff: 6 stale, 0 missing entries\n" {
					t.Errorf("stderr %q", errOut)
				}
			case ExitIncomplete:
				if !strings.HasPrefix(errOut, "warning: partial result: ") {
					t.Errorf("stderr %q", errOut)
				}
			}
			golden(t, tt.golden, out)
		})
	}
}

// The expected document of one server, -o json, is what the real server sent, byte for byte.
func TestDiscoveryExpectedIsTheServedBody(t *testing.T) {
	steady := discoverySnapshot(t, "steady")
	snap, err := snapshot.LoadFile(steady)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kas-a", "kas-b", "kas-c"} {
		out, errOut, code := run(t, "discovery", "expected", "--snapshot", steady, "--apiserver", name, "-o", "json")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		if served := gunzipCapture(t, "steady-"+name+"-default.json"); out != string(served) {
			t.Errorf("%s: expected document (%d bytes) is not the served body (%d bytes)", name, len(out), len(served))
		}
		if want := "ETag: " + snap.Find(name).DefaultAPIs.ETag + "\n"; errOut != want {
			t.Errorf("%s: stderr %q, want %q", name, errOut, want)
		}
		y, _, code := run(t, "discovery", "expected", "--snapshot", steady, "--apiserver", name, "-o", "yaml")
		var doc struct {
			Kind  string            `json:"kind"`
			Items []json.RawMessage `json:"items"`
		}
		if code != ExitOK || yaml.Unmarshal([]byte(y), &doc) != nil || doc.Kind != "APIGroupDiscoveryList" || len(doc.Items) != 22 {
			t.Errorf("%s -o yaml: exit %d, kind %q, %d groups", name, code, doc.Kind, len(doc.Items))
		}
	}
}

func TestDiscoveryExpectedList(t *testing.T) {
	steady := discoverySnapshot(t, "steady")
	snap, err := snapshot.LoadFile(steady)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "discovery", "expected", "--snapshot", steady, "-o", "json")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var list peerdiscovery.ExpectedList
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if list.Kind != peerdiscovery.ExpectedListKind || list.APIVersion != report.APIVersion || list.Partial || len(list.Items) != 3 {
		t.Fatalf("kind %s/%s partial %v items %d", list.APIVersion, list.Kind, list.Partial, len(list.Items))
	}
	for _, e := range list.Items {
		if e.Status != peerdiscovery.StatusAggregated || e.ETag != snap.Find(e.Server).DefaultAPIs.ETag || e.ETag != peerdiscovery.ETag(e.Items()) {
			t.Errorf("%s: %s, ETag %.16s…, served %.16s…", e.Server, e.Status, e.ETag, snap.Find(e.Server).DefaultAPIs.ETag)
		}
	}
}

func TestDiscoveryErrors(t *testing.T) {
	steady := discoverySnapshot(t, "steady")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"discovery", "expected", "--snapshot", steady, "--apiserver", "kas-z"}, `no server "kas-z" in the snapshot (servers: kas-a, kas-b, kas-c)`},
		{[]string{"discovery", "diff", "--snapshot", steady, "--apiserver", "kas-z"}, `no server "kas-z" in the snapshot`},
		{[]string{"discovery", "expected", "--snapshot", skew, "--apiserver", "kas-c"}, `server "kas-c": unreachable: could not be read`},
		{[]string{"discovery", "expected", "--snapshot", skew, "--apiserver", "kas-a", "-o", "json"}, `server "kas-a": not-recorded: its /apis document is not recorded`},
		{[]string{"discovery", "diff", "--snapshot", steady, "-o", "junit"}, `unknown output format "junit" for "mvpctl discovery diff": want one of table|wide|name|jsonpath=TEMPLATE|csv|json|yaml`},
		{[]string{"discovery", "expected", "extra-arg"}, `unknown command "extra-arg"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != ExitError || out != "" {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			if !strings.HasPrefix(errOut, "error: ") || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr = %q, want one line mentioning %q", errOut, tt.want)
			}
		})
	}
}

// A diff of one server reports that server only, and a snapshot's other unreachable servers
// do not make it partial.
func TestDiscoveryDiffOneServer(t *testing.T) {
	stale := discoverySnapshot(t, "stale")
	out, _, code := run(t, "discovery", "diff", "--snapshot", stale, "--apiserver", "kas-b", "-o", "json")
	var rep peerdiscovery.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != ExitFindings || len(rep.Servers) != 1 || rep.Kind != peerdiscovery.ReportKind {
		t.Fatalf("exit %d, err %v, report %+v", code, err, rep)
	}
	if !bytes.Contains([]byte(out), []byte(`"class": "stale"`)) {
		t.Error("no stale entry")
	}
}
