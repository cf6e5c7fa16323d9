//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/process"
	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/internal/apimetrics"
	"github.com/mvpctl/mvpctl/pkg/clientevidence"
	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/installer"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// boundRow is one row of docs/faults.md's table of bounds: what is read or computed, its
// bound (from the constants that set it), what a run at the bound cost on a 2-core machine
// (measured with /usr/bin/time -v; not asserted, a figure of the doc), and the tests that
// assert the refusal.
type boundRow struct{ what, bound, atBound, tests string }

func boundRows() []boundRow {
	mib := func(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
	return []boundRow{
		{"a snapshot or profile file, stdin, a gzip once expanded", mib(snapshot.MaxSize),
			"`routes` of a 486 MiB JSON snapshot (2 servers, 3.3 million resources): 2,846 MB, 23.4 s CPU; of the same shape, 48 MiB of JSON 362 MB, 53 MiB of YAML 444 MB, 1.7 s CPU each",
			"TestSizeLimit, TestDecompressionBomb; the gzip row below"},
		{"a `--static-pod-manifest` or `--kubeadm-control-plane` file", mib(installer.MaxManifestBytes), "refused at 1 MiB + 1 byte read", "the `--static-pod-manifest` row below"},
		{"a baseline (`--baseline`, `.mvpctl-ignore`)", mib(maxAcceptFile), "refused at 8 MiB + 1 byte read", "the `--baseline` row below"},
		{"a scenario file; its steps (each step's routing is kept for the report)", fmt.Sprintf("%s; %d steps", mib(simulate.MaxScenarioFile), simulate.MaxSteps),
			"see the next row", "the scenario rows below"},
		{"a simulation: servers × evaluated steps (a crash counts twice) × GVRs, refused before any work", fmt.Sprintf("%d routing cells", simulate.MaxRoutingCells),
			"60 servers × 56 × 72 = 241,920 cells: 273 MB, 0.94 s CPU (300 × 201 × 72 took 3 GB and minutes before the bound)",
			"TestRunRefusesPastTheRoutingCellBound; the 300 × 200 row below"},
		{"a request list or audit log (`--requests`, `--audit-log`), once expanded: bytes, lines, time; a line; malformed lines before requests",
			fmt.Sprintf("%d GiB, %d lines, %s; %d MiB; %d, when they outnumber the requests", replay.MaxTrafficBytes>>30, replay.MaxTrafficLines, replay.MaxTrafficTime,
				(4*16<<20)>>20, replay.MaxLeadingMalformed),
			"streamed in constant memory: a 1 GB audit log (1.2 million lines): 42 MB, 1.6 s CPU, so 64 GiB about 110 s CPU",
			"TestTrafficReaderBounds; the /dev/zero and /dev/urandom rows below"},
		{"a kubeconfig file (each of `--kubeconfig`, `$KUBECONFIG`); a device other than /dev/null is refused", mib(kubeflags.MaxKubeconfig),
			"an 8 MiB kubeconfig of 2,000 clusters: 87 MB, 1.1 s CPU (60 MB took 13.4 s and 439 MB before the bound)",
			"TestKubeconfigFilesBounded; the kubeconfig rows below"},
		{"one answer of an apiserver (discovery documents, lists)", mib(apiclient.DefaultMaxBody),
			"`routes` reading a `/api` answer of 128 MiB less 100 bytes (JSON padded with spaces): 295 MB, 0.9 s CPU", "TestWithMaxBody"},
		{"one answer `probe` reads (a list asks for one item, a watch lasts one second); longer, it is cut there and the report says so (`truncated`): a cut 2xx, 401 or 403 is classified by its status, any other cut answer makes the measurement inconclusive",
			mib(probe.MaxBody),
			"`probe --resource jobs.batch` (2 servers), the list answered with 1 MiB + 1 byte of JSON: 29 MB, 0.06 s CPU (23 MB, 0.02 s with a 200-byte list; 29 MB, 0.09 s with a 1 GiB list)",
			"TestAnswersOverTheBound, TestWatchStartsAtACutListsVersion, TestClassifyCut, TestProbeTableCutAnswers; e2e TestProbeCutAnswers"},
		{"the ConfigMap kube-system/kubeadm-config", mib(discover.MaxKubeadmConfig), "not measured at the bound", "TestKubeadmConfig"},
		{"the identity-lease list (discovery's and the lease watch's, whole); one event of the lease watch", mib(discover.MaxLeaseAnswer),
			"not measured at the bound (a 5.2 MB list was read whole before); past it discovery reads the servers found otherwise, a partial read (exit 2)", "TestLeaseListBounded, TestLeaseWatchBounds; e2e TestIdentityLeaseListBounded"},
		{"what a credential plugin, and what it starts, writes (Linux: its stdout is read whole by client-go; past the bound the plugin is stopped and not run again)", mib(process.MaxChildOutput),
			"the 500 MB plugin row below", "the credential plugin rows below"},
		{"one read of `/metrics`: bytes, lines, series of the families read", fmt.Sprintf("%s, %d lines, %d series", mib(apimetrics.MaxBytes), apimetrics.MaxLines, apimetrics.MaxSeries),
			"not measured at the bound", "TestParseBounds"},
		{"the client evidence of one run, every source together (each `--manifests` path, each Helm release record): bytes, documents, objects; a file is sized before it is read; past the bound the source is cut, the rest not read, the verdict partial (exit 2); one Helm record once decompressed",
			fmt.Sprintf("%s, %d documents, %d objects; %s", mib(replay.MaxEvidenceBytes), replay.MaxEvidenceDocuments, replay.MaxEvidenceObjects, mib(clientevidence.MaxHelmManifest)),
			"`preflight --helm-releases`, 40 records of 30 MiB of manifest each (a 7.8 MB Secret list): cut at the fifth, 3.3–5.1 s wall, 3.1–4.4 s CPU, 132–176 MB at a load average of 2.4–3.9 (the reader before records were streamed, alongside: 5.8–10.0 s, 5.7–6.9 s CPU, 231–260 MB; before the bound: 198 s, 5,824 MB); 100 such records: cut at the fifth, 3.8–4.0 s, 4.4–5.2 s CPU, 148–164 MB; SIGTERM during the read: exit 0.03–0.10 s after; three `--manifests` of 196 MiB, or one of 283 MB: refused before a byte is read, 0.2 s, 30–31 MB (before: 19.6 s and 644 MB; 5.6 s and 609 MB); one of 128 MiB, the whole budget: read one document at a time, 93–103 MB, 5.0–7.0 s CPU (before: 316–582 MB, 5.7–8.2 s CPU)",
			"TestBudgetOverAllManifests, TestBudgetStdin, TestHelmMapperBudget, TestHelmBudget (BenchmarkHelmBudget measures it); the `--manifests` rows below"},
		{"a server's request counts in a snapshot (`servers[].requests.counts`: one row per resource and verb; a live read keeps at most the `/metrics` series bound), refused while the file is decoded", fmt.Sprintf("%d rows", snapshot.MaxRequestCountRows),
			"`preflight --snapshot` of a 109 MB YAML snapshot holding 1,000,000 rows: refused with one line, 342 MB, 2.9 s CPU (before the bound the same file was judged in 1,201 MB, 13 s CPU)",
			"TestRequestCountRowsBound"},
	}
}

// boundCases are the rows of docs/faults.md for inputs past the bounds of boundRows: each
// refused with one line naming the bound, before the work it would have cost.
func boundCases() []processCase {
	refused := func(fault, command string, want string, setup func(t *testing.T, dir string) []string) processCase {
		return processCase{fault: fault, command: command, exit: ExitError, within: 3 * time.Second,
			setup: func(t *testing.T, dir string) processRun { return processRun{args: setup(t, dir)} },
			check: func(t *testing.T, r processResult) {
				if n := strings.Count(r.stderr, "error: "); n != 1 || !strings.Contains(r.stderr, want) {
					t.Errorf("stderr %q: want one error line with %q", r.stderr, want)
				}
			},
		}
	}
	sparse := func(t *testing.T, name string, size int64) string {
		path := filepath.Join(t.TempDir(), name) // dir is checked for leftovers
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		return path
	}
	upgrade := []string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36", "--to", "1.37"}
	return []processCase{
		refused("a scenario of 300 servers × 200 steps (16 KB)", "simulate run --scenario scenario.yaml",
			"300 servers × 201 evaluated steps × 72 GVRs = 4341600 routing cells; at most 250000 are simulated",
			func(t *testing.T, dir string) []string {
				var b strings.Builder
				b.WriteString("apiVersion: mvpctl.io/v1alpha2\nkind: Scenario\nfrom:\n  servers:\n")
				for i := range 300 {
					fmt.Fprintf(&b, "  - {name: s%d, version: \"1.36\"}\n", i)
				}
				b.WriteString("steps:\n")
				for i := range 200 {
					fmt.Fprintf(&b, "- {action: upgrade, server: s%d, to: \"1.37\"}\n", i)
				}
				path := filepath.Join(t.TempDir(), "scenario.yaml")
				if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
					t.Fatal(err)
				}
				return []string{"simulate", "run", "--scenario", path}
			}),
		refused("audit log: /dev/zero, a line that never ends", "simulate upgrade --servers a=1.36,b=1.36 --to 1.37 --audit-log /dev/zero",
			"traffic /dev/zero: a line longer than 64 MiB: not read further",
			func(*testing.T, string) []string { return append(upgrade, "--audit-log", "/dev/zero") }),
		refused("audit log: /dev/urandom, lines that are not events", "simulate upgrade --servers a=1.36,b=1.36 --to 1.37 --audit-log /dev/urandom",
			"lines are malformed", func(*testing.T, string) []string { return append(upgrade, "--audit-log", "/dev/urandom") }),
		refused("request list: /dev/urandom", "simulate upgrade --servers a=1.36,b=1.36 --to 1.37 --requests /dev/urandom",
			"not read further (not a request list?)", func(*testing.T, string) []string { return append(upgrade, "--requests", "/dev/urandom") }),
		refused("a kubeconfig of 60 MB", "routes --kubeconfig kubeconfig", "bytes, larger than 8 MiB: not read",
			func(t *testing.T, dir string) []string {
				return []string{"routes", "--kubeconfig", sparse(t, "kubeconfig", 60_000_000)}
			}),
		withEnv(refused("a kubeconfig of 60 MB in $KUBECONFIG", "routes", "bytes, larger than 8 MiB: not read", nil),
			func(t *testing.T) processRun {
				return processRun{args: []string{"routes"}, env: []string{"KUBECONFIG=" + sparse(t, "config", 60_000_000)}}
			}),
		refused("--kubeconfig /dev/zero", "routes --kubeconfig /dev/zero", `"/dev/zero": a device, not a kubeconfig: not read`,
			func(*testing.T, string) []string { return []string{"routes", "--kubeconfig", "/dev/zero"} }),
		refused("a --static-pod-manifest file of 2 MB", "snapshot --static-pod-manifest kas-a=FILE", "larger than 1 MiB",
			func(t *testing.T, dir string) []string {
				return []string{"snapshot", "--server", "https://127.0.0.1:1", "--static-pod-manifest", "kas-a=" + sparse(t, "manifest.yaml", 2<<20)}
			}),
		refused("a --baseline of 9 MB", "preflight --servers a=1.36,b=1.36 --to 1.37 --baseline FILE", "larger than 8 MiB",
			func(t *testing.T, dir string) []string {
				return []string{"preflight", "--servers", "a=1.36,b=1.36", "--to", "1.37", "--baseline", sparse(t, "baseline", 9<<20)}
			}),
	}
}

// withEnv gives c its own setup (a run with an environment).
func withEnv(c processCase, setup func(t *testing.T) processRun) processCase {
	c.setup = func(t *testing.T, _ string) processRun { return setup(t) }
	return c
}

// endlessAuditLog replaces endless.log in r's arguments with a FIFO the test writes valid
// audit events to until mvpctl goes away: a log that never ends and is never malformed. The
// signal waits until mvpctl has read a first thousand events (it is replaying the log).
func endlessAuditLog(t *testing.T, dir string, r *processRun) {
	path := filepath.Join(t.TempDir(), "endless.log") // dir is checked for leftovers
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, a := range r.args {
		r.args[i] = strings.ReplaceAll(a, "endless.log", path)
	}
	var replaying atomic.Bool
	if r.sig != nil {
		after := r.sig.ready
		r.sig.ready = func() bool { return replaying.Load() && after() }
	}
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		// A thousand events at a time, a pause between: a log being written, not a race
		// between the test and mvpctl for the two cores.
		for i := 0; ; i++ {
			var b strings.Builder
			for j := range 1000 {
				fmt.Fprintf(&b, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"id-%d-%d","stage":"ResponseComplete","requestURI":"/api/v1/pods","verb":"list","userAgent":"kubectl","responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-23T09:36:23.013143Z"}`+"\n", i, j)
			}
			if _, err := f.WriteString(b.String()); err != nil {
				return
			}
			replaying.Store(true) // written into the pipe: mvpctl reads it
			time.Sleep(5 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { // a writer still waiting for mvpctl to open the FIFO
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
}
