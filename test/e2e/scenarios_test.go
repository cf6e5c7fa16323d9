package e2e

// Scenarios: for each, `mvpctl snapshot` + `mvpctl explain -o json`
// (the real binary) must predict, per server, exactly the routing outcome observed by
// sending the same request to that server (normal and forced local, classified by
// pkg/probe). See README.md, "Scenarios".

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// scenarioTimings collects how long each step of a test took and logs them at the end.
type scenarioTimings struct {
	t     *testing.T
	start time.Time
	steps []string
	durs  []time.Duration
}

func newScenarioTimings(t *testing.T) *scenarioTimings {
	tm := &scenarioTimings{t: t, start: time.Now()}
	// The mvpctl binary first (built once per test binary unless $MVPCTL_BIN is set), so
	// that no scenario's time includes the build.
	t0 := time.Now()
	mvpctlBinary(t)
	if d := time.Since(t0); d > time.Second {
		tm.add("mvpctl binary (go build)", d)
	}
	t.Cleanup(func() {
		var b strings.Builder
		w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for i, s := range tm.steps {
			fmt.Fprintf(w, "  %s\t%s\n", s, tm.durs[i].Round(100*time.Millisecond))
		}
		fmt.Fprintf(w, "  total\t%s\n", time.Since(tm.start).Round(100*time.Millisecond))
		w.Flush()
		t.Logf("timings of %s:\n%s", t.Name(), b.String())
	})
	return tm
}

func (tm *scenarioTimings) add(step string, d time.Duration) {
	tm.steps = append(tm.steps, step)
	tm.durs = append(tm.durs, d)
}

// run runs a scenario as a subtest and records how long it took.
func (tm *scenarioTimings) run(name string, f func(t *testing.T)) bool {
	t0 := time.Now()
	ok := tm.t.Run(name, f)
	d := time.Since(t0)
	tm.add("scenario "+name, d)
	tm.t.Logf("scenario %s took %s", name, d.Round(100*time.Millisecond))
	return ok
}

func (tm *scenarioTimings) startPlane(specs ...harness.ServerSpec) *harness.ControlPlane {
	t0 := time.Now()
	cp := harness.Start(tm.t, specs...)
	var vs []string
	for _, s := range specs {
		vs = append(vs, s.Version)
	}
	tm.add("control plane "+strings.Join(vs, "+"), time.Since(t0))
	return cp
}

// snapServer returns the snapshot's entry for name, or nil.
func snapServer(snap snapFile, name string) *snapshot.Server {
	for i := range snap.Servers {
		if snap.Servers[i].Name == name {
			return &snap.Servers[i]
		}
	}
	return nil
}

func fmtBoolPtr(b *bool) string {
	if b == nil {
		return "unknown"
	}
	return fmt.Sprint(*b)
}

// TestScenariosPair runs scenarios a, c, f, d and e on one control plane: two v1.36.3
// apiservers on one etcd, kas-a with every API, kas-b with batch/v1 turned off (as
// Kubernetes' own peer-proxy integration tests do). The destructive scenarios (d:
// SIGKILL, e: SIGTERM) run last.
func TestScenariosPair(t *testing.T) {
	harness.SkipIfUnsupported(t)
	tm := newScenarioTimings(t)
	cp := tm.startPlane(
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=api/all=true"}},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=api/all=true,batch/v1=false"}},
	)
	a, b := cp.Server("kas-a"), cp.Server("kas-b")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir() // snapshots outlive the subtests

	var (
		base snapFile
		reqs []mvpRequest // computed in a, reused by c, d and e
	)

	// a: one binary, batch/v1 off on kas-b: kas-b proxies batch/v1 to kas-a (200).
	tm.run("a-proxied", func(t *testing.T) {
		var r mvpctlResult
		base, r = mvpctlSnapshot(t, dir+"/a.json", []int{0}, "--kubeconfig", cp.Kubeconfig)
		t.Logf("mvpctl snapshot: %d servers in %s", len(base.Servers), r.Took.Round(time.Millisecond))
		checkShared(t, base)
		reqs = append(skewRequests(t, base), sharedRequests()...)
		c := compareRouting(t, ctx, cp, base, reqs, time.Time{}, "scenario a (batch/v1 off on kas-b)")
		c.expectSkew(t, "proxied")
		c.expect(t, "kas-b", "/apis/batch/v1/", "proxied")
		for _, cmpRow := range c.Rows {
			if cmpRow.Server == "kas-b" && cmpRow.Req.Path == "/apis/batch/v1/namespaces/default/jobs" && cmpRow.HTTP != "200/404" {
				t.Errorf("list jobs via kas-b: HTTP %s, want 200 (proxied) / 404 (forced local)", cmpRow.HTTP)
			}
		}
	})

	// c: the loop-prevention header: never proxied; kas-b answers batch/v1 with 404.
	tm.run("c-header", func(t *testing.T) {
		if reqs == nil {
			t.Skip("scenario a did not produce its requests")
		}
		c := compareRouting(t, ctx, cp, base, withHeader(reqs), time.Time{}, "scenario c (x-kubernetes-peer-proxied: true)")
		c.expectSkew(t, "not-found")
		c.expect(t, "kas-b", "/apis/batch/v1/", "not-found")
	})

	// f: CustomResourceDefinitions are served by every server: never proxied.
	tm.run("f-crd", func(t *testing.T) {
		crds := applyCRDs(t, ctx, cp, a)
		snap, _ := mvpctlSnapshot(t, dir+"/f.json", []int{0}, "--kubeconfig", cp.Kubeconfig)
		for _, gv := range []string{"e2e.mvpctl.io/v1", "e2e.mvpctl.io/v1beta1"} {
			if !hasString(snap.Cluster.CustomResourceGroupVersions, gv) {
				t.Errorf("snapshot cluster.customResourceGroupVersions = %v, lacks %s", snap.Cluster.CustomResourceGroupVersions, gv)
			}
		}
		var fr []mvpRequest
		for _, r := range crds {
			fr = append(fr, resourceRequests(r, "CRD "+gvrOf(r).String(), nil)...)
		}
		fr = append(fr,
			mvpRequest{Method: "GET", Path: "/apis/e2e.mvpctl.io/v1/namespaces/default/widgets/w1", Why: "CRD: get of an existing object"},
			mvpRequest{Method: "GET", Path: "/apis/e2e.mvpctl.io/v1beta1/namespaces/default/widgets", Why: "CRD version with served: false"},
			mvpRequest{Method: "GET", Path: "/apis/e2e.mvpctl.io/v1", Why: "CRD group/version discovery"},
		)
		c := compareRouting(t, ctx, cp, snap, fr, time.Time{}, "scenario f (CustomResourceDefinitions)")
		for _, s := range []string{"kas-a", "kas-b"} {
			c.expect(t, s, "/apis/e2e.mvpctl.io/v1/", "local")
			c.expect(t, s, "/apis/e2e.mvpctl.io/v1beta1/", "not-found")
		}
	})

	// d: the only server of batch/v1 SIGKILLed: 503 transport while its endpoint lease
	// lives (guaranteed ~5 s: 15 s TTL renewed every 10 s), then 503 endpoint-resolution.
	tm.run("d-sigkill", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: skipping the destructive scenarios (SIGKILL, SIGTERM)")
		}
		if reqs == nil {
			t.Skip("scenario a did not produce its requests")
		}
		if err := cp.Kill("kas-a"); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		snap, r := mvpctlSnapshot(t, dir+"/d1.json", []int{2}, "--kubeconfig", b.Kubeconfig)
		t.Logf("mvpctl snapshot %s after the kill, took %s (exit %d): %s", time.Since(killed).Round(time.Millisecond), r.Took.Round(time.Millisecond), r.Exit, strings.TrimSpace(string(r.Stderr)))
		// Right after the kill the endpoint key surely lives, or may (inside the window the
		// lease's last renewal allows): never recorded as gone.
		if s := snapServer(snap, "kas-a"); s == nil || s.Reachable || (s.PeerProxy.EndpointWindow == nil && (s.PeerProxy.EndpointResolvable == nil || !*s.PeerProxy.EndpointResolvable)) {
			t.Errorf("snapshot right after the kill: kas-a = %+v, want reachable false, endpoint resolvable or in its window", s)
		}
		c := compareRouting(t, ctx, cp, snap, reqs, killed, "scenario d, kas-a SIGKILLed < 5 s ago")
		c.expectSkew(t, "unavailable/transport")
		for _, cmpRow := range c.Rows {
			if cmpRow.Server == "kas-b" && cmpRow.Req.OnlyOn != nil && cmpRow.At > 5*time.Second {
				t.Logf("warning: %s observed %s after the kill: the endpoint key may have expired (TTL 15 s, renewed every 10 s)", cmpRow.Req, cmpRow.At.Round(time.Millisecond))
			}
		}

		// Past the end of the window the snapshot allows for the key's expiry, counted from the
		// identity lease's last renewal (at the latest, the kill itself): then it is gone for
		// sure. A fixed 25 s fell inside the window when the lease was renewed under a second
		// before the kill.
		gone := mvp.EndpointWindowAfter(killed).GoneBy
		time.Sleep(time.Until(gone))
		snap, r = mvpctlSnapshot(t, dir+"/d2.json", []int{2}, "--kubeconfig", b.Kubeconfig)
		after := time.Since(killed).Round(time.Millisecond)
		t.Logf("mvpctl snapshot %s after the kill (exit %d)", after, r.Exit)
		if s := snapServer(snap, "kas-a"); s == nil || s.Reachable || s.PeerProxy.EndpointResolvable == nil || *s.PeerProxy.EndpointResolvable {
			t.Errorf("snapshot %s after the kill: kas-a = %+v, want reachable false, endpointResolvable false", after, s)
		}
		c = compareRouting(t, ctx, cp, snap, reqs, killed, fmt.Sprintf("scenario d, kas-a SIGKILLed %s ago", after.Round(time.Second)))
		c.expectSkew(t, "unavailable/endpoint-resolution")
	})

	// e: the only server of batch/v1 stopped with SIGTERM: its identity lease is deleted,
	// kas-b knows no peer for batch/v1: 404.
	tm.run("e-sigterm", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: skipping the destructive scenarios (SIGKILL, SIGTERM)")
		}
		if reqs == nil {
			t.Skip("scenario a did not produce its requests")
		}
		t0 := time.Now()
		if err := cp.Restart(ctx, "kas-a"); err != nil {
			t.Fatal(err)
		}
		if err := cp.WaitPeers(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("kas-a restarted and peered in %s", time.Since(t0).Round(time.Millisecond))
		if err := cp.Stop("kas-a"); err != nil {
			t.Fatal(err)
		}
		stopped := time.Now()
		snap, _ := mvpctlSnapshot(t, dir+"/e.json", []int{0}, "--kubeconfig", b.Kubeconfig)
		if s := snapServer(snap, "kas-a"); s != nil {
			t.Errorf("snapshot after SIGTERM still lists kas-a (%+v): its identity lease should be gone", s)
		}
		c := compareRouting(t, ctx, cp, snap, reqs, stopped, "scenario e, kas-a stopped with SIGTERM")
		c.expectSkew(t, "not-found")
	})
}

// TestScenarioSkew is scenario b: real version skew, a v1.36.3 and a v1.37.1 apiserver
// (defaults) on one etcd: every GVR only one of them serves.
func TestScenarioSkew(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the v1.36/v1.37 control plane")
	}
	tm := newScenarioTimings(t)
	cp := tm.startPlane(
		harness.ServerSpec{Name: "kas-136", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-137", Version: harness.V1_37},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	tm.run("b-skew", func(t *testing.T) {
		snap, _ := mvpctlSnapshot(t, dir+"/b.json", []int{0}, "--kubeconfig", cp.Kubeconfig)
		checkSnapshotAccuracy(t, ctx, cp, snap)
		checkShared(t, snap)
		reqs := append(skewRequests(t, snap), sharedRequests()...)
		byGVR, _, reachable := servedBy(snap)
		var gvrs []string
		for k, by := range byGVR {
			if len(by) < len(reachable) {
				gvrs = append(gvrs, k.String()+" only on "+strings.Join(by, ","))
			}
		}
		sort.Strings(gvrs)
		t.Logf("%d GVRs differ between %s and %s:\n  %s", len(gvrs), harness.V1_36, harness.V1_37, strings.Join(gvrs, "\n  "))
		c := compareRouting(t, ctx, cp, snap, reqs, time.Time{}, "scenario b (v1.36.3 + v1.37.1)")
		c.expectSkew(t, "proxied")
	})
}

// TestScenarioGateOff is scenario g: a v1.35.4 pair without the feature gate (off by
// default before 1.36), batch/v1 off on kas-b: 404, never proxied.
func TestScenarioGateOff(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the v1.35 gate-off control plane")
	}
	tm := newScenarioTimings(t)
	cp := tm.startPlane(
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_35, GateOff: true},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_35, GateOff: true, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	tm.run("g-gate-off", func(t *testing.T) {
		// Gate off: the identity leases carry no peer-advertise address, so mvpctl is
		// told where both servers are (--endpoint). Which lease is whose cannot be told
		// (nothing to compare them by), so the servers are read without IDs — and the
		// snapshot is complete: every apiserver answered (exit 0).
		snap, r := mvpctlSnapshot(t, dir+"/g.json", []int{0}, "--kubeconfig", cp.Kubeconfig,
			"--endpoint", cp.Server("kas-a").URL, "--endpoint", cp.Server("kas-b").URL)
		t.Logf("mvpctl snapshot (exit %d): %s", r.Exit, strings.TrimSpace(string(r.Stderr)))
		if len(snap.Servers) != 2 {
			t.Errorf("snapshot lists %d servers, want the 2 apiservers", len(snap.Servers))
		}
		for _, s := range cp.Servers() {
			got := snapServer(snap, snapName(snap, s))
			if got == nil || !got.Reachable {
				t.Errorf("snapshot has no reachable entry for %s (%s)", s.Name, s.URL)
				continue
			}
			if got.PeerProxy.GateEnabled == nil || *got.PeerProxy.GateEnabled || got.PeerProxy.FilterInstalled == nil || *got.PeerProxy.FilterInstalled {
				t.Errorf("snapshot: %s gateEnabled=%s filterInstalled=%s, want false/false", s.Name, fmtBoolPtr(got.PeerProxy.GateEnabled), fmtBoolPtr(got.PeerProxy.FilterInstalled))
			}
		}
		checkShared(t, snap)
		reqs := append(skewRequests(t, snap), sharedRequests()...)
		c := compareRouting(t, ctx, cp, snap, reqs, time.Time{}, "scenario g (v1.35.4, gate off, batch/v1 off on kas-b)")
		c.expectSkew(t, "not-found")
		c.expect(t, "kas-b", "/apis/batch/v1/", "not-found")
	})
}

// checkSnapshotAccuracy: the snapshot lists every apiserver with its identity (the lease name
// the server itself writes), its version, and exactly the GVRs its own non-peer discovery
// (/api and /apis, asked directly) lists.
func checkSnapshotAccuracy(t *testing.T, ctx context.Context, cp *harness.ControlPlane, snap snapFile) {
	t.Helper()
	if len(snap.Servers) != len(cp.Servers()) {
		t.Errorf("snapshot lists %d servers, the control plane has %d", len(snap.Servers), len(cp.Servers()))
	}
	for _, s := range cp.Servers() {
		got := snapServer(snap, s.Name)
		if got == nil {
			t.Errorf("snapshot has no server %s", s.Name)
			continue
		}
		if got.ID != s.LeaseID || got.Version != s.Version || !got.Reachable {
			t.Errorf("snapshot: %s has id %q version %q reachable %v; want %q %q true", s.Name, got.ID, got.Version, got.Reachable, s.LeaseID, s.Version)
		}
		want := map[harness.GVR]bool{}
		for _, path := range []string{"/api", "/apis"} {
			d, err := s.Discovery(ctx, path, true)
			if err != nil {
				t.Fatal(err)
			}
			for g := range harness.GVRs(d) {
				want[g] = true
			}
		}
		have := map[harness.GVR]bool{}
		for _, r := range got.Resources {
			have[harness.GVR{Group: r.Group, Version: r.Version, Resource: r.Resource}] = true
		}
		for g := range want {
			if !have[g] {
				t.Errorf("snapshot: %s serves %s, the snapshot does not list it", s.Name, g)
			}
		}
		for g := range have {
			if !want[g] {
				t.Errorf("snapshot: %s lists %s, which the server's own discovery does not", s.Name, g)
			}
		}
		t.Logf("snapshot: %s = %s, %s, %d GVRs, all as the server's own discovery lists them", s.Name, got.ID, got.Version, len(have))
	}
}

// crdWidgets (namespaced; v1 served with a status subresource, v1beta1 defined but not
// served) and crdGadgets (cluster-scoped).
var (
	crdGVR  = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	schemaP = map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
)

func crdObject(plural, kind, scope string, versions ...map[string]any) *unstructured.Unstructured {
	vs := make([]any, len(versions))
	for i, v := range versions {
		vs[i] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + ".e2e.mvpctl.io"},
		"spec": map[string]any{
			"group": "e2e.mvpctl.io", "scope": scope,
			"names":    map[string]any{"plural": plural, "singular": strings.TrimSuffix(plural, "s"), "kind": kind, "listKind": kind + "List"},
			"versions": vs,
		},
	}}
}

// applyCRDs creates two CRDs and one Widget through s with the admin client, waits until
// every running server's own discovery lists them, and returns their resources.
func applyCRDs(t *testing.T, ctx context.Context, cp *harness.ControlPlane, s *harness.Server) []snapshot.Resource {
	t.Helper()
	dyn, err := dynamic.NewForConfig(s.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	objs := []*unstructured.Unstructured{
		crdObject("widgets", "Widget", "Namespaced",
			map[string]any{"name": "v1", "served": true, "storage": true, "schema": schemaP, "subresources": map[string]any{"status": map[string]any{}}},
			map[string]any{"name": "v1beta1", "served": false, "storage": false, "schema": schemaP}),
		crdObject("gadgets", "Gadget", "Cluster",
			map[string]any{"name": "v1", "served": true, "storage": true, "schema": schemaP}),
	}
	for _, o := range objs {
		if _, err := dyn.Resource(crdGVR).Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: "mvpctl-e2e", Force: true}); err != nil {
			t.Fatalf("apply CRD %s: %v", o.GetName(), err)
		}
	}
	want := []harness.GVR{{Group: "e2e.mvpctl.io", Version: "v1", Resource: "widgets"}, {Group: "e2e.mvpctl.io", Version: "v1", Resource: "gadgets"}}
	for _, srv := range cp.Servers() {
		for {
			d, err := srv.Discovery(ctx, "/apis", true)
			missing := err != nil
			if err == nil {
				got := harness.GVRs(d)
				for _, g := range want {
					missing = missing || !got[g]
				}
			}
			if !missing {
				break
			}
			if ctx.Err() != nil || time.Since(t0) > 2*time.Minute {
				t.Fatalf("%s's own discovery does not list %v after %s (last error %v)", srv.Name, want, time.Since(t0).Round(time.Second), err)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	// A new CRD's storage answers 429 "storage is (re)initializing" until its watch cache
	// is ready: wait for a 200 list on every server (forced local; CRDs are never proxied).
	for _, srv := range cp.Servers() {
		for _, p := range []string{"/apis/e2e.mvpctl.io/v1/namespaces/default/widgets", "/apis/e2e.mvpctl.io/v1/gadgets"} {
			for {
				r, err := srv.Get(ctx, p, probe.ForcedLocalHeader, probe.ForcedLocalValue)
				if err == nil && r.StatusCode == 200 {
					break
				}
				if ctx.Err() != nil || time.Since(t0) > 2*time.Minute {
					t.Fatalf("%s: GET %s does not answer 200 after %s: %v %v", srv.Name, p, time.Since(t0).Round(time.Second), r, err)
				}
				time.Sleep(250 * time.Millisecond)
			}
		}
	}
	widget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "e2e.mvpctl.io/v1", "kind": "Widget", "metadata": map[string]any{"name": "w1", "namespace": "default"},
	}}
	wgvr := schema.GroupVersionResource{Group: "e2e.mvpctl.io", Version: "v1", Resource: "widgets"}
	if _, err := dyn.Resource(wgvr).Namespace("default").Apply(ctx, "w1", widget, metav1.ApplyOptions{FieldManager: "mvpctl-e2e", Force: true}); err != nil {
		t.Fatalf("apply widget w1: %v", err)
	}
	t.Logf("CRDs applied, in every server's own discovery and listable after %s", time.Since(t0).Round(time.Millisecond))
	listVerbs := []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
	return []snapshot.Resource{
		{Group: "e2e.mvpctl.io", Version: "v1", Resource: "widgets", Namespaced: true, Verbs: listVerbs, Subresources: []string{"status"}},
		{Group: "e2e.mvpctl.io", Version: "v1", Resource: "gadgets", Namespaced: false, Verbs: listVerbs},
	}
}
