package architecture

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// commandImports is every package of this module that cmd/mvpctl may import, and why. A
// command parses flags, calls the library, hands the result to a renderer and maps it to an
// exit code: the pictures (pkg/diagram), the installers' formats (pkg/installer), escaping
// (internal/textsafe), the HTTP client (internal/apiclient) and the rules' decisions are the
// library's business, never a command's.
var commandImports = map[string]string{
	"cmd/mvpctl/internal/cli":       "the flags and plumbing every command shares",
	"cmd/mvpctl/internal/kubeflags": "kubectl's connection flags",
	"cmd/mvpctl/internal/process":   "the one exit path and the signal handler",
	"cmd/mvpctl/internal/render":    "the renderers, one per report",
	"cmd/mvpctl/internal/trace":     "-v",
	"pkg/buildinfo":                 "mvpctl version",
	"pkg/basis":                     "snapshot, routes: what a snapshot's result rests on (its reads)",
	"pkg/clientevidence":            "preflight: the live cluster's Helm releases and managedFields",
	"pkg/discover":                  "snapshot, watch, probe: reading a live control plane",
	"pkg/lifecycle":                 "apis: the lifecycle of every built-in API, asked directly",
	"pkg/mvp":                       "help text naming the apiserver's loop-prevention header and metrics, spelled in pkg/mvp only",
	"pkg/output":                    "the one output Writer",
	"pkg/peerdiscovery":             "discovery expected|diff",
	"pkg/preflight":                 "preflight: the gate's Run and its verdict",
	"pkg/probe":                     "probe",
	"pkg/profile":                   "profiles list|show, --profile",
	"pkg/profilerecord":             "profiles record",
	"pkg/promevidence":              "--prometheus: reading the Prometheus that keeps the apiservers' counters",
	"pkg/proxytraffic":              "traffic",
	"pkg/replay":                    "--audit-log, --requests, --manifests: what clients asked",
	"pkg/report":                    "a result's class, which the one exit map turns into a code",
	"pkg/route":                     "routes, explain",
	"pkg/simulate":                  "simulate: the plan and the rehearsal",
	"pkg/snapshot":                  "--snapshot and snapshot -f",
	"pkg/watch":                     "watch and its exporter",
}

// TestCommandImports: cmd/mvpctl imports exactly the packages commandImports lists.
func TestCommandImports(t *testing.T) {
	got := goListImports(t, moduleRoot(t))["cmd/mvpctl"]
	for _, p := range got {
		if _, ok := commandImports[p]; !ok {
			t.Errorf("cmd/mvpctl imports %s, which a command has no business with: move the code that needs it into the library (or, with a reason, add it to commandImports)", p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(commandImports)) {
		if !slices.Contains(got, p) {
			t.Errorf("commandImports lists %s, which cmd/mvpctl no longer imports: remove it", p)
		}
	}
}

// Commands are thin: flags, validation, one library call, a renderer, an exit code.
const (
	maxCommandFileLines    = 200
	maxCommandPackageLines = 3500
)

// TestCommandsAreThin: no production file of cmd/mvpctl is over maxCommandFileLines lines and
// all of them together are under maxCommandPackageLines.
func TestCommandsAreThin(t *testing.T) {
	dir := filepath.Join(moduleRoot(t), "cmd", "mvpctl")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	total, count := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		n := countLines(t, f)
		total, count = total+n, count+1
		if n > maxCommandFileLines {
			t.Errorf("cmd/mvpctl/%s has %d lines, over %d: what is not flags, validation and the library call belongs in the library or cmd/mvpctl/internal/render", filepath.Base(f), n, maxCommandFileLines)
		}
	}
	t.Logf("cmd/mvpctl: %d production lines in %d files", total, count)
	if total >= maxCommandPackageLines {
		t.Errorf("cmd/mvpctl has %d production lines, want under %d", total, maxCommandPackageLines)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		n++
	}
	return n
}
