package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestRuntimeConfigGroupVersionTheBinaryLacks: what kube-apiserver does at start-up with a
// --runtime-config entry naming a group/version its binary does not have (one the previous
// minor had: networking.k8s.io/v1beta1 is in v1.36's full set, not in v1.37's). An upgrade that
// keeps such a flag meets exactly this; mvpctl models it as mvp.UnknownGroupVersionAtStartup.
func TestRuntimeConfigGroupVersionTheBinaryLacks(t *testing.T) {
	harness.SkipIfUnsupported(t)
	cp, err := harness.NewControlPlane(harness.Config{Servers: []harness.ServerSpec{{Name: "kas-rc", Version: harness.V1_37,
		ExtraFlags: []string{"--runtime-config=networking.k8s.io/v1beta1=true"}}}, Logf: t.Logf})
	if cp != nil {
		defer cp.Close()
	}
	if err != nil {
		t.Fatalf("v1.37 refused --runtime-config=networking.k8s.io/v1beta1=true (mvpctl models: it starts and ignores it): %v\n%s", err, cp.Server("kas-rc").LogTail(15))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	own, err := cp.Server("kas-rc").Discovery(ctx, "/apis", true)
	if err != nil {
		t.Fatal(err)
	}
	for g := range harness.GVRs(own) {
		if g.Group == "networking.k8s.io" && g.Version == "v1beta1" {
			t.Errorf("v1.37 serves %s: the group/version is not unknown to it after all", g)
		}
	}
	var said []string
	for _, line := range strings.Split(cp.Server("kas-rc").LogTail(100000), "\n") {
		if strings.Contains(line, "networking.k8s.io/v1beta1") && !strings.Contains(line, "FLAG:") && !strings.Contains(line, "=== harness") {
			said = append(said, line)
		}
	}
	t.Logf("v1.37 started with --runtime-config=networking.k8s.io/v1beta1=true, does not serve it, and logged %d line(s) about it:\n%s", len(said), strings.Join(said, "\n"))
}
