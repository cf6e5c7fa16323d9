package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// EnvMvpctlBin names the mvpctl binary the scenarios run (`make e2e` sets it to
// bin/mvpctl). When it is unset, the tests build ../../cmd/mvpctl once per test
// binary, into a temporary directory removed when the tests end.
const EnvMvpctlBin = "MVPCTL_BIN"

var (
	binDir   string // temp dir for a built mvpctl, removed by TestMain
	binOnce  sync.Once
	binPath  string
	binErr   error
	binBuilt time.Duration
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// mvpctlBinary returns the mvpctl binary to run: $MVPCTL_BIN, or one built from this
// repository's cmd/mvpctl on first use (the build time is logged once).
func mvpctlBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		if p := os.Getenv(EnvMvpctlBin); p != "" {
			if binPath, binErr = filepath.Abs(p); binErr == nil {
				_, binErr = os.Stat(binPath)
			}
			return
		}
		root, err := filepath.Abs("../..")
		if err != nil {
			binErr = err
			return
		}
		if binDir, binErr = os.MkdirTemp("", "mvpctl-e2e-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "mvpctl")
		t0 := time.Now()
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/mvpctl")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/mvpctl in %s: %v\n%s", root, err, out)
			return
		}
		binBuilt = time.Since(t0)
		t.Logf("e2e: built mvpctl from %s/cmd/mvpctl in %s", root, binBuilt.Round(time.Millisecond))
	})
	if binErr != nil {
		t.Fatalf("mvpctl binary: %v (set %s to a built binary)", binErr, EnvMvpctlBin)
	}
	return binPath
}

// mvpctlResult is one run of the mvpctl binary.
type mvpctlResult struct {
	Args   []string
	Exit   int
	Stdout []byte
	Stderr []byte
	Took   time.Duration
}

func (r mvpctlResult) String() string {
	return fmt.Sprintf("mvpctl %s: exit %d after %s; stderr:\n%s", strings.Join(r.Args, " "), r.Exit,
		r.Took.Round(time.Millisecond), strings.TrimSpace(string(r.Stderr)))
}

// runMvpctl runs the mvpctl binary with args. A failure to start it fails t; a non-zero
// exit is returned for the caller to judge.
func runMvpctl(t testing.TB, args ...string) mvpctlResult {
	t.Helper()
	bin := mvpctlBinary(t)
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	r := mvpctlResult{Args: args, Stdout: out.Bytes(), Stderr: errb.Bytes(), Took: time.Since(t0)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Exit = ee.ExitCode()
	default:
		t.Fatalf("running %s %s: %v", bin, strings.Join(args, " "), err)
	}
	return r
}

// mvpctlSnapshot runs `mvpctl snapshot -o json -f FILE` with extra args, checks the
// exit code is one of want, and returns the file's path and its decoded servers.
func mvpctlSnapshot(t testing.TB, file string, want []int, args ...string) (snapFile, mvpctlResult) {
	t.Helper()
	r := runMvpctl(t, append([]string{"snapshot", "-o", "json", "-f", file}, args...)...)
	ok := false
	for _, w := range want {
		ok = ok || r.Exit == w
	}
	if !ok {
		t.Fatalf("%s\nwant exit %v", r, want)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%s\nreading the snapshot: %v", r, err)
	}
	// snapshot.Decode, not json.Unmarshal: a mvpctl.io/v1alpha2 file leaves out the lists its
	// discovery documents give, and Decode derives them.
	snap, err := snapshot.Decode(b)
	if err != nil {
		t.Fatalf("decoding %s: %v", file, err)
	}
	return snapFile{Snapshot: *snap, Path: file}, r
}
