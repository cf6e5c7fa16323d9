package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShutdownLines(t *testing.T) {
	before := "I1129 graceful-termination event before the stop\n"
	after := strings.Join([]string{
		`I1129 genericapiserver.go:571] "[graceful-termination] shutdown event" name="ShutdownInitiated"`,
		`I1129 controller.go:10] unrelated line`,
		`I1129 get.go:279] "Starting watch" path="/apis/coordination.k8s.io/v1/leases" timeout="2s"`,
		`I1129 httplog.go:134] "HTTP" verb="WATCH" URI="/apis/coordination.k8s.io/v1/leases" latency="2.001s"`,
		`E1129 secure_serving.go:242] Failed to shutdown server: context deadline exceeded`,
	}, "\n")
	path := filepath.Join(t.TempDir(), "kas.log")
	if err := os.WriteFile(path, []byte(before+after+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		max  int
		want []string
		not  []string
	}{
		{"all markers after the offset", 10, []string{"ShutdownInitiated", "Starting watch", `verb="WATCH"`, "Failed to shutdown"}, []string{"before the stop", "unrelated"}},
		{"the last ones when over max", 2, []string{"2 earlier lines left out", `verb="WATCH"`, "Failed to shutdown"}, []string{"ShutdownInitiated"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := shutdownLines(path, int64(len(before)), tc.max)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("unexpected %q in:\n%s", n, got)
				}
			}
		})
	}
	if got := shutdownLines(filepath.Join(t.TempDir(), "none.log"), 0, 5); !strings.HasPrefix(got, "(cannot read") {
		t.Errorf("missing file: got %q", got)
	}
}
