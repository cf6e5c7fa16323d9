package e2e

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestProfilesRecord: `mvpctl profiles record` against real apiservers of a version mvpctl
// embeds — one with the binary's defaults, one with --runtime-config=api/all=true — records the
// profile `make profiles` recorded from the same binary (the same code, pkg/profilerecord; only
// the source line and the date say who recorded it when). Then the profile, its version string
// rewritten to a release mvpctl does not know (v1.39.0), makes `simulate upgrade --to 1.39` and
// `preflight --to 1.39` work; without it they fail with the how-to line.
func TestProfilesRecord(t *testing.T) {
	harness.SkipIfUnsupported(t)
	version := harness.V1_36 // embedded as pkg/profile/profiles/v1.36.3.json
	cp, err := harness.NewControlPlane(harness.Config{Servers: []harness.ServerSpec{
		{Name: "kas-default", Version: version, DefaultProxyConfig: true},
		{Name: "kas-all", Version: version, DefaultProxyConfig: true, ExtraFlags: []string{"--runtime-config=api/all=true"}},
	}, Logf: t.Logf})
	if cp != nil {
		defer cp.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	def, all := cp.Server("kas-default"), cp.Server("kas-all")
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config")) // the mvpctl runs below: no profile directory

	recorded := filepath.Join(dir, "recorded.json")
	r := runMvpctl(t, "--kubeconfig", cp.Kubeconfig, "profiles", "record", "--endpoint", def.URL, "--api-all-endpoint", all.URL, "-f", recorded)
	t.Logf("%s", r)
	if r.Exit != 0 {
		t.Fatalf("want exit 0: a default server, everything captured (feature gates read from /metrics, none off its default)")
	}
	got, want := decodeFile(t, recorded), decodeFile(t, "../../pkg/profile/profiles/"+version+".json")
	if !reflect.DeepEqual(got.Servers, want.Servers) {
		for i := range want.Servers {
			g, w := got.Servers[i], want.Servers[i]
			t.Errorf("server %s: recorded %d resources, embedded %d; peer proxy %+v vs %+v; equal resources: %t",
				w.Name, len(g.Resources), len(w.Resources), g.PeerProxy, w.PeerProxy, reflect.DeepEqual(g.Resources, w.Resources))
		}
	}
	t.Logf("recorded = embedded except, by design: source %q (embedded %q), taken %s (embedded %s)", got.Source, want.Source, got.TakenAt.Format("2006-01-02"), want.TakenAt.Format("2006-01-02"))

	// The api/all=true server named as the default one: its alpha and beta APIs give it away.
	r = runMvpctl(t, "--kubeconfig", cp.Kubeconfig, "profiles", "record", "--endpoint", all.URL)
	if r.Exit != 2 || !strings.Contains(string(r.Stderr), "warning: not the defaults: it serves alpha or beta APIs, which a default kube-apiserver does not (--runtime-config?): ") ||
		!strings.Contains(string(r.Stdout), "NOT THE DEFAULTS: it serves alpha or beta APIs") {
		t.Errorf("recording the api/all=true server as a default one: %s\nwant exit 2 and the alpha/beta APIs named, on stderr and in the profile's source", r)
	}

	// A release mvpctl does not embed: the recorded profile with its version rewritten.
	checkRecordedVersion(t, dir, recorded, version)

	// Feature gates off their default, as /metrics shows them: a real alpha gate of this binary
	// switched on, and the peer-proxy gate (beta, on by default in 1.36+) switched off.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	alpha := firstAlphaGate(ctx, t, def)
	if err := cp.Reconfigure(ctx, def.Name, func(s *harness.ServerSpec) {
		s.ExtraFlags = append(s.ExtraFlags, "--feature-gates="+alpha+"=true,UnknownVersionInteroperabilityProxy=false")
	}); err != nil {
		t.Fatalf("restarting %s with --feature-gates=%s=true,UnknownVersionInteroperabilityProxy=false: %v\n%s", def.Name, alpha, err, def.LogTail(20))
	}
	r = runMvpctl(t, "--kubeconfig", cp.Kubeconfig, "profiles", "record", "--endpoint", def.URL, "--api-all-endpoint", all.URL, "-f", filepath.Join(dir, "gates.json"))
	t.Logf("%s", r)
	for _, want := range []string{
		"warning: not the defaults: feature gates not at their defaults (--feature-gates?): " + alpha + "=true (ALPHA)\n",
		"warning: not the defaults: UnknownVersionInteroperabilityProxy is off, but on by default in 1.36+ (--feature-gates?)\n",
	} {
		if r.Exit != 2 || !strings.Contains(string(r.Stderr), want) {
			t.Errorf("want exit 2 and %q", want)
		}
	}
}

// firstAlphaGate is the first alpha feature gate (by name) the server's /metrics reports off.
func firstAlphaGate(ctx context.Context, t *testing.T, s *harness.Server) string {
	t.Helper()
	resp, err := s.Get(ctx, "/metrics")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %v %v", resp, err)
	}
	line := regexp.MustCompile(`(?m)^kubernetes_feature_enabled\{name="([A-Za-z0-9]+)",stage="ALPHA"\} 0$`)
	var names []string
	for _, m := range line.FindAllStringSubmatch(string(resp.Body), -1) {
		if m[1] != "AllAlpha" {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		t.Fatalf("/metrics lists no alpha gate that is off")
	}
	sort.Strings(names)
	t.Logf("%d alpha gates off by default; switching on %s", len(names), names[0])
	return names[0]
}

// checkRecordedVersion rewrites the recorded profile's version to v1.39.0, a release mvpctl
// does not embed: with it simulate upgrade and preflight --to 1.39 work; without it they fail
// with the how-to line.
func checkRecordedVersion(t *testing.T, dir, recorded, version string) {
	t.Helper()
	data, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	minor := strings.TrimPrefix(version[:strings.LastIndex(version, ".")], "v")
	fake := strings.ReplaceAll(strings.ReplaceAll(string(data), `"version": "`+version+`"`, `"version": "v1.39.0"`), `"emulatedVersion": "`+minor+`"`, `"emulatedVersion": "1.39"`)
	v139 := filepath.Join(dir, "v1.39.0.json")
	if err := os.WriteFile(v139, []byte(fake), 0o644); err != nil {
		t.Fatal(err)
	}
	noProfile := "error: no profile for Kubernetes 1.39: mvpctl has profiles for v1.33.13, v1.34.4, v1.35.4, v1.36.3, v1.37.2, v1.38.0; record one from a running 1.39 kube-apiserver: " +
		"`mvpctl profiles record --context CONTEXT -f " + filepath.Join(dir, "config", "mvpctl", "profiles", "v1.39.0.json") + "`, or give a profile file with --profile FILE\n"
	for _, cmd := range [][]string{{"simulate", "upgrade"}, {"preflight"}} {
		args := append(cmd, "--servers", "a=1.38,b=1.38", "--to", "1.39", "-o", "json")
		r := runMvpctl(t, append(args, "--profile", v139)...)
		if r.Exit == 1 || !strings.Contains(string(r.Stdout), `"v1.39.0"`) {
			t.Errorf("%s\nwant a result upgrading to v1.39.0", r)
		} else {
			t.Logf("%s --profile v1.39.0.json: exit %d", strings.Join(args, " "), r.Exit)
		}
		r = runMvpctl(t, args...)
		if r.Exit != 1 || string(r.Stderr) != noProfile || len(r.Stdout) != 0 {
			t.Errorf("%s\nwant exit 1 and exactly:\n%s", r, noProfile)
		}
	}
}

func decodeFile(t *testing.T, path string) *snapshot.Snapshot {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Decode(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}
