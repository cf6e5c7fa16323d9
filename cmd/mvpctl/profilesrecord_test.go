package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/profile"
)

// profiles record against fake apiservers: the profile loads as one, and what could not be
// captured (here: /metrics, which the fakes do not serve; the full set) is said on stderr, with
// exit 2.
func TestProfilesRecord(t *testing.T) {
	resetProfiles(t)
	f := newSnapshotFixture(t)
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	file := filepath.Join(xdg, "mvpctl", "profiles", "v1.36.3.json")
	out, errOut, code := run(t, "--kubeconfig", f.kubeconfig, "profiles", "record", "--endpoint", f.a.URL(), "-f", file)
	f.assertNoSecrets(t, "stderr", errOut)
	if code != ExitIncomplete || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"warning: not captured: the full set (what the binary serves with --runtime-config=api/all=true)",
		"warning: not captured: whether feature gates are set (--feature-gates): GET /metrics: HTTP 404\n",
		"wrote " + file + ": the profile of v1.36.3 (",
		"warning: profile recorded with caveats: 2 not captured, 0 signs of a configuration other than the defaults (above)\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f.assertNoSecrets(t, "the profile", string(data))
	p, err := profile.Decode(data)
	if err != nil || p.Version.String() != "v1.36.3" || p.Full != nil || len(p.Resources) == 0 {
		t.Fatalf("the profile: %v %v (full %v, %d resources)", err, p.Version, p.Full != nil, len(p.Resources))
	}
	// The profile directory now holds it: profiles list shows it, replacing the embedded one.
	out, errOut, code = run(t, "profiles", "list", "--no-headers")
	if code != ExitOK || !strings.Contains(out, file) || !strings.Contains(errOut, "profiles of 1.36: using v1.36.3 from "+file+" (profile directory), not the embedded v1.36.3") {
		t.Errorf("profiles list: exit %d\n%s\n%s", code, out, errOut)
	}
	// To stdout, the same document.
	out, _, code = run(t, "--kubeconfig", f.kubeconfig, "profiles", "record", "--endpoint", f.b.URL())
	if code != ExitIncomplete || !strings.Contains(out, `"version": "v1.37.1"`) {
		t.Errorf("record --endpoint: exit %d\n%.300s", code, out)
	}
	// The kubeconfig's server, in a control plane of several, may be a load balancer.
	_, errOut, code = run(t, "--kubeconfig", f.kubeconfig, "profiles", "record")
	if want := "warning: not captured: whether " + f.a.URL() + " is one apiserver: the control plane has 1 more (identity leases); if it is a load balancer, name one apiserver's address (--endpoint)\n"; code != ExitIncomplete || !strings.Contains(errOut, want) {
		t.Errorf("through another address: exit %d, stderr lacks %q:\n%s", code, want, errOut)
	}
}

func TestProfilesRecordErrors(t *testing.T) {
	f := newSnapshotFixture(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--kubeconfig", f.kubeconfig, "profiles", "record", "--endpoint", "https://" + f.dead}, "error: server " + f.dead},
		{[]string{"--kubeconfig", f.kubeconfig, "profiles", "record", "--api-all-endpoint", f.b.URL()}, "error: the api/all=true server is v1.37.1, the default one v1.36.3: a profile is one version\n"},
		{[]string{"--kubeconfig", f.kubeconfig, "profiles", "record", "--timeout", "0s"}, "error: --timeout must be positive, got 0s\n"},
	} {
		out, errOut, code := run(t, tt.args...)
		if code != ExitError || out != "" || !strings.HasPrefix(errOut, tt.want) && !strings.Contains(errOut, tt.want) || strings.Count(errOut, "error:") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tt.args, code, out, errOut, tt.want)
		}
	}
}
