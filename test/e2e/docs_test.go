package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/mvpctl/mvpctl/test/docexamples"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// docsLiveExit is the exit codes each live command of README.md and docs/*.md may have on
// this test's control plane, by the command as written. A documented live command missing
// here fails TestDocsCommands with the code it got. 1 (a usage or input error) is never
// accepted.
var docsLiveExit = map[string][]int{
	"mvpctl snapshot":                           {0},
	"mvpctl snapshot -f cluster.yaml":           {0},
	"mvpctl snapshot -f cluster.json":           {0},
	"mvpctl snapshot -o json":                   {0},
	"mvpctl snapshot --contexts cp-1,cp-2,cp-3": {0},
	"mvpctl snapshot --endpoint https://10.0.0.12:6443 --endpoint https://10.0.0.13:6443": {0},
	"mvpctl discovery diff --snapshot cluster.json":                                       {0},
	"mvpctl discovery diff": {0},
	"mvpctl discovery expected --snapshot cluster.json --apiserver kas-b":                         {0},
	"mvpctl discovery expected --snapshot cluster.json --apiserver kas-b -o json > expected.json": {0},
	"mvpctl probe": {0},
	// README's "On your cluster", on the snapshot just taken.
	"mvpctl routes --snapshot cluster.yaml":                                             {0},
	"mvpctl explain --snapshot cluster.yaml GET /apis/batch/v1/namespaces/default/jobs": {0},
	"mvpctl preflight --snapshot cluster.yaml --to 1.37":                                {0},
	// docs/triage.md: the live snapshot asked what a crash of kas-a does; the counters read.
	"mvpctl explain --snapshot cluster.yaml --step crash:kas-a GET /apis/batch/v1/namespaces/default/jobs": {0},
	"mvpctl traffic": {0},
	// docs/watch.md: interrupted after 5 s (130); the summary is printed first.
	"mvpctl watch": {130},
	"mvpctl watch --interval 500ms --until-stable 5m -o json > watch.jsonl": {130},
	"mvpctl routes -w --context prod-a":                                     {130},
	// docs/exporter.md: the exporter mode, interrupted likewise.
	"mvpctl watch --metrics-address :9090 -o json":                                         {130},
	"mvpctl probe --group batch --write-dry-run -o json":                                   {0},
	"mvpctl probe --snapshot cluster.yaml --apiserver kas-b --qps 2 --probe-concurrency 1": {0},
	// docs/simulate.md: no full set (no --api-all-endpoint), and the context's server is one
	// of three apiservers, maybe a load balancer: both said on stderr, exit 2.
	"mvpctl profiles record --context new-release -f v1.39.0.json": {2},
}

// TestDocsCommands runs every live mvpctl command of README.md and docs/*.md (the ones
// test/docexamples classifies live: they take a snapshot or probe) as the reader would,
// with KUBECONFIG pointing at a real control plane of three apiservers: kas-a v1.36.3,
// kas-b v1.36.3 with batch/v1 off, kas-c v1.36.3: a plane about to be upgraded to 1.37
// (docs/ci.md's preflight), whose one skew (batch/v1 served by kas-a and kas-c only) keeps
// the probes short (`--qps 2` in docs/probe.md paces one request every 500 ms). The commands of one document run in a
// directory of their own holding a copy of the shipped examples/; a command reading a file
// (cluster.json) runs after the command of the same document that writes it, independent
// commands in parallel.
//
// Substitutions, each logged: docexamples.FileSubstitutions (the reader's own files → the
// shipped examples) and docexamples.Placeholders (the docs' apiserver addresses → the URLs of
// this control plane's servers). The kubeconfig has one context per server, named as the docs
// name them (cp-1 → kas-a, cp-2 → kas-b, cp-3 → kas-c; current: cp-1), so `--contexts
// cp-1,cp-2,cp-3` runs as written. Offline commands are run by cmd/mvpctl's TestDocsCommands;
// a command that is neither fails both (docexamples.Extract).
func TestDocsCommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := docexamples.Extract(root)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		t.Skip("-short: skipping the documentation's live commands (~85 s: docs/probe.md's paced probes)")
	}
	bin := mvpctlBinary(t)
	start := time.Now()
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_36},
	)
	t.Logf("timings of TestDocsCommands: control plane %s", time.Since(start).Round(time.Millisecond))

	// The kubeconfig the docs assume: contexts cp-1..cp-3, one per apiserver.
	kc := clientcmdapi.NewConfig()
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: cp.PKI.AdminCert, ClientKey: cp.PKI.AdminKey}
	for i, s := range cp.Servers() {
		name := "cp-" + string(rune('1'+i))
		kc.Clusters[name] = &clientcmdapi.Cluster{Server: s.URL, CertificateAuthority: cp.PKI.ServerCA}
		kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: "admin"}
		t.Logf("kubeconfig: context %s → %s (%s)", name, s.Name, s.URL)
	}
	kc.CurrentContext = "cp-1"
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		t.Fatal(err)
	}

	// Chains: a command that reads or writes a file an earlier command of its document wrote
	// runs after it, in the same chain; other commands start chains of their own, and chains run
	// in parallel (the probes in docs/probe.md are paced by --qps: one after the other they
	// take over two minutes).
	type chain struct {
		name string
		dir  string
		cmds []docexamples.Command
	}
	var chains []*chain
	dirs := map[string]string{}              // document → its working directory
	writer := map[string]map[string]*chain{} // document → file → the chain that wrote it last
	seen := map[string]bool{}
	for _, c := range cmds {
		if c.Kind != docexamples.Live {
			continue
		}
		seen[c.Text] = true
		dir, ok := dirs[c.File]
		if !ok {
			dir = filepath.Join(t.TempDir(), strings.ReplaceAll(c.File, "/", "_"))
			if err := docexamples.CopyExamples(root, dir); err != nil {
				t.Fatal(err)
			}
			dirs[c.File] = dir
			writer[c.File] = map[string]*chain{}
		}
		files := docsFiles(c)
		var ch *chain
		for _, f := range files {
			if w := writer[c.File][f]; w != nil {
				if ch != nil && ch != w {
					t.Fatalf("%s: depends on two chains of commands (%s, %s); the test cannot order it", c, ch.name, w.name)
				}
				ch = w
			}
		}
		if ch == nil {
			ch = &chain{name: fmt.Sprintf("%s:%d", c.File, c.Line), dir: dir}
			chains = append(chains, ch)
		}
		ch.cmds = append(ch.cmds, c)
		for _, f := range files {
			writer[c.File][f] = ch
		}
	}
	for text := range docsLiveExit {
		if !seen[text] {
			t.Errorf("docsLiveExit lists %q, which no document shows any more: remove it", text)
		}
	}

	t.Run("commands", func(t *testing.T) {
		for _, ch := range chains {
			t.Run(ch.name, func(t *testing.T) {
				t.Parallel()
				for _, c := range ch.cmds {
					runDocsCommand(t, bin, ch.dir, kubeconfig, cp, c)
				}
			})
		}
	})
	t.Logf("timings of TestDocsCommands: all %s", time.Since(start).Round(time.Millisecond))
}

// docsFiles are the files of its working directory a live command reads or writes.
func docsFiles(c docexamples.Command) []string {
	var files []string
	for _, flag := range []string{"--snapshot", "--audit-log", "--requests", "-f", "--file"} {
		if f, ok := docexamples.FlagValue(c.Args, flag); ok && !strings.HasPrefix(f, "examples/") {
			files = append(files, f)
		}
	}
	if c.Stdout != "" {
		files = append(files, c.Stdout)
	}
	return files
}

// runDocsCommand runs one live documented command in dir with KUBECONFIG=kubeconfig, after
// replacing docexamples.Placeholders by the URLs of cp's servers, and checks its exit code
// against docsLiveExit.
func runDocsCommand(t *testing.T, bin, dir, kubeconfig string, cp *harness.ControlPlane, c docexamples.Command) {
	t.Helper()
	args := append([]string(nil), c.Args...)
	for i, a := range args {
		k, v, hasEq := strings.Cut(a, "=")
		if !hasEq {
			v = a
		}
		name, ok := docexamples.Placeholders[v]
		if !ok {
			continue
		}
		s := cp.Server(name)
		if s == nil {
			t.Fatalf("%s: placeholder %s names server %s, which this control plane lacks", c, v, name)
		}
		if hasEq {
			args[i] = k + "=" + s.URL
		} else {
			args[i] = s.URL
		}
		t.Logf("substituted in %s: %s → %s (%s)", c, v, s.URL, name)
	}
	for _, fs := range docexamples.FileSubstitutions { // already applied by Extract
		if strings.Contains(c.Text, fs.From) {
			t.Logf("substituted in %s: %s → %s", c, fs.From, fs.To)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	var err error
	if c.Follows {
		// A watch runs until interrupted: let it read a few times, then Ctrl-C, as the reader would.
		if err = cmd.Start(); err == nil {
			time.Sleep(5 * time.Second)
			_ = cmd.Process.Signal(os.Interrupt)
			err = cmd.Wait()
		}
	} else {
		err = cmd.Run()
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("%s: %v", c, err)
	}
	t.Logf("live: %s: exit %d after %s (%s)", c, code, time.Since(t0).Round(time.Millisecond), c.Why)
	want, listed := docsLiveExit[c.Text]
	switch {
	case code == 1 || code < 0:
		t.Errorf("%s: exit %d (usage or input error, or killed):\n%s", c, code, stderr.String())
	case !listed:
		t.Errorf("%s: exit %d; add the command with its exit code to docsLiveExit:\n%s", c, code, stderr.String())
	case !slices.Contains(want, code):
		t.Errorf("%s: exit %d, want one of %v:\nstdout:\n%s\nstderr:\n%s", c, code, want, tail(stdout.String(), 30), stderr.String())
	}
	if c.Stdout != "" {
		if err := os.WriteFile(filepath.Join(dir, c.Stdout), stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if f, ok := docexamples.FlagValue(args, "-f", "--file"); ok {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: did not write %s: %v", c, f, err)
		}
	} else if stdout.Len() == 0 {
		t.Errorf("%s: printed nothing on stdout", c)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
