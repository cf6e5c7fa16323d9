package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestPreflightHarm, on three real apiservers as a plain installer starts them (gate on from
// 1.36, no --peer-ca-file): preflight's blocking findings are requests that work today and fail
// during the upgrade, and the 404 happens. kas-a also serves networking.k8s.io/v1beta1
// (--runtime-config), which 1.37 does not have; a client lists its ipaddresses through kas-a.
// The rehearsal of 1.36 → 1.37 blocks when the servers' request counters (in a snapshot taken
// before the client) hold no client of it but cover seconds of the 7-day evidence window, and
// warns over a window they cover (or with replayed requests that hold no client); it blocks naming the
// client when the audit logs, a live run (the counters of its snapshot; the field manager of an
// object written through the API, from managedFields) or a manifest directory (FILE:LINE) hold
// one. A replayed request for certificates.k8s.io/v1/clustertrustbundles, new in 1.37, is
// already failing: it gets 404 from every server today, and during the upgrade only from the
// servers not yet upgraded, where it failed before: a warning naming the servers, not harm.
// Then kas-a is upgraded for real with the same flags: the client's request gets 404 from
// kas-a, and the new GVR, 404 on every server before, gets 404 from kas-b and kas-c while kas-a
// answers it.
func TestPreflightHarm(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the rehearsed-then-real upgrade")
	}
	dir := t.TempDir()
	audit := auditFlags(t, dir)
	logA, logB, logC := filepath.Join(dir, "kas-a-audit.log"), filepath.Join(dir, "kas-b-audit.log"), filepath.Join(dir, "kas-c-audit.log")
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, DefaultProxyConfig: true,
			ExtraFlags: append([]string{"--runtime-config=networking.k8s.io/v1beta1=true"}, audit(logA)...)},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, DefaultProxyConfig: true, ExtraFlags: audit(logB)},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_36, DefaultProxyConfig: true, ExtraFlags: audit(logC)},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	const agent, removed, added = "preflight-harm-e2e", "/apis/networking.k8s.io/v1beta1/ipaddresses?limit=1", "/apis/certificates.k8s.io/v1/clustertrustbundles?limit=1"
	// Before any client: the servers' request counters, recorded in the snapshot, hold none
	// of the group/version kas-a's --runtime-config keeps.
	snap, _ := mvpctlSnapshot(t, filepath.Join(dir, "start.json"), []int{0, 2}, "--kubeconfig", cp.Kubeconfig)
	start := []string{"--snapshot", snap.Path, "--no-baseline"}
	if r, err := cp.Server("kas-a").Get(ctx, removed, "User-Agent", agent); err != nil || r.StatusCode != 200 {
		t.Fatalf("before the upgrade, GET %s on kas-a: %v %v", removed, err, r)
	}
	for _, srv := range []string{"kas-a", "kas-b", "kas-c"} { // the GVR new in 1.37 fails today
		if r, err := cp.Server(srv).Get(ctx, added, "User-Agent", agent); err != nil || r.StatusCode != 404 {
			t.Fatalf("before the upgrade, GET %s on %s: %v %v, want 404", added, srv, err, r)
		}
	}
	// A client writes an object of the removed API through kas-a, with its field manager.
	const writer = "preflight-harm-e2e-writer"
	ip := `{"apiVersion":"networking.k8s.io/v1beta1","kind":"IPAddress","metadata":{"name":"10.96.0.99"},"spec":{"parentRef":{"group":"","resource":"services","namespace":"default","name":"kubernetes"}}}`
	if r, err := cp.Server("kas-a").Do(ctx, "POST", "/apis/networking.k8s.io/v1beta1/ipaddresses?fieldManager="+writer,
		http.Header{"Content-Type": {"application/json"}, "User-Agent": {agent}}, strings.NewReader(ip)); err != nil || r.StatusCode != 201 {
		t.Fatalf("before the upgrade, POST an IPAddress on kas-a: %v %v", err, r)
	}
	// A Helm release whose manifest holds an object of the removed API, as Helm 3 stores it: a
	// Secret of type helm.sh/release.v1 whose data.release is the record, gzip, base64.
	if r, err := cp.Server("kas-b").Do(ctx, "POST", "/api/v1/namespaces/default/secrets", http.Header{"Content-Type": {"application/json"}},
		strings.NewReader(helmReleaseSecret(t, "net", 3, "---\n# Source: net/templates/ip.yaml\napiVersion: networking.k8s.io/v1beta1\nkind: IPAddress\nmetadata:\n  name: 10.96.0.98\n"))); err != nil || r.StatusCode != 201 {
		t.Fatalf("create the Helm release Secret: %v %v", err, r)
	}
	waitLogged(t, logA, agent, 3)
	waitLogged(t, logB, agent, 1)
	waitLogged(t, logC, agent, 1)
	live := []string{"--kubeconfig", cp.Kubeconfig, "--no-baseline"}

	manifests := filepath.Join(dir, "manifests")
	if err := os.MkdirAll(filepath.Join(manifests, "net"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(manifests, "net", "ip.yaml"), []byte("# reserved\n---\napiVersion: networking.k8s.io/v1beta1\nkind: IPAddress\nmetadata:\n  name: 10.96.0.99\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noClient := filepath.Join(dir, "no-client.txt")
	newGVR := filepath.Join(dir, "new-gvr.txt")
	for path, text := range map[string]string{noClient: "GET /api/v1/namespaces/default/pods\nGET /apis/apps/v1/deployments\n", newGVR: "GET " + added + "\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name       string
		args       []string
		exit       int
		check, sev string
		says       string
	}{
		// Counters of servers started moments before cover seconds, not the default 7-day
		// window: they cannot show that nothing uses the API.
		{"no traffic, request counters of seconds without a client of it", start, 3, "MVP040", "blocking",
			"its clients may use it: the evidence read looks back less than the 7d evidence window (--evidence-window): the request counters of kas-a "},
		{"... over a window they cover", append(start, "--evidence-window", "1s"), 2, "MVP040", "warning", "no request counted on kas-a (since it started"},
		{"traffic without a client of it, over a window the counters cover", append(start, "--requests", noClient, "--evidence-window", "1s"), 2, "MVP040", "warning", "none of the 2 replayed requests"},
		{"the servers' audit logs, with its client", append(start, "--audit-log", "kas-a="+logA, "--audit-log", "kas-b="+logB, "--audit-log", "kas-c="+logC), 3, "MVP040", "blocking", agent},
		{"... whose 404s of today are already failing", append(start, "--audit-log", "kas-a="+logA, "--audit-log", "kas-b="+logB, "--audit-log", "kas-c="+logC), 3, "MVP020", "warning",
			"certificates.k8s.io/v1/clustertrustbundles already get 404 or 503 at the start on kas-a, kas-b, kas-c"},
		{"a client of a GVR new in 1.37: already failing", append(start, "--requests", newGVR, "--evidence-window", "1s"), 2, "MVP020", "warning",
			"certificates.k8s.io/v1/clustertrustbundles already get 404 or 503 at the start on kas-a, kas-b, kas-c"},
		{"live, after the clients: the writer named from managedFields", live, 3, "MVP040", "blocking",
			`field manager "` + writer + `" (update of 1 object(s) with networking.k8s.io/v1beta1, last `},
		// The first live run listed the objects through networking.k8s.io/v1: not counted here.
		{"live again: the clients' requests counted on kas-a, not mvpctl's reads", live, 3, "MVP040", "blocking", "clients use it: 2 request(s) on kas-a over "},
		{"live, --helm-releases: the release whose manifest holds an object of it", append(live, "--helm-releases"), 3, "MVP040", "blocking",
			"helm release default/net (revision 3), manifest line 3 (IPAddress networking.k8s.io/v1beta1)"},
		{"a manifest directory holding an object of it", append(start, "--manifests", manifests), 3, "MVP040", "blocking",
			"clients use it: " + filepath.Join(manifests, "net", "ip.yaml") + ":3 (IPAddress networking.k8s.io/v1beta1)"},
	} {
		rep := runPreflight(t, tc.exit, tc.args...)
		found := false
		for _, f := range rep.Findings {
			if f.Check == tc.check && f.Severity == tc.sev && strings.Contains(f.Message, tc.says) {
				found = true
				t.Logf("%s: exit %d; %s %s %s: %s", tc.name, tc.exit, f.Check, f.Severity, f.Subject, f.Message)
			}
		}
		if !found {
			t.Errorf("%s: no %s %s finding saying %q: %+v", tc.name, tc.sev, tc.check, tc.says, rep.Findings)
		}
	}

	// The upgrade, for real: kas-a restarts on 1.37 with the same flags.
	if err := cp.Upgrade(ctx, "kas-a", harness.V1_37); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		server, path string
		status       int
	}{
		{"kas-a", removed, 404}, // the client's request that worked before the upgrade
		{"kas-b", added, 404},   // the new GVR, on the servers not yet upgraded
		{"kas-c", added, 404},
		{"kas-a", added, 200}, // ... which the upgraded one serves
	} {
		r, err := cp.Server(want.server).Get(ctx, want.path, "User-Agent", agent)
		if err != nil {
			t.Fatalf("GET %s on %s: %v", want.path, want.server, err)
		}
		t.Logf("after kas-a's upgrade to %s: GET %s on %s: %d", harness.V1_37, want.path, want.server, r.StatusCode)
		if r.StatusCode != want.status {
			t.Errorf("GET %s on %s: %v, want %d", want.path, want.server, r, want.status)
		}
	}
}

// helmReleaseSecret is a Secret as Helm 3 stores a release's revision: type helm.sh/release.v1,
// data.release the record's JSON, gzip, base64 (inside the Secret's own base64).
func helmReleaseSecret(t *testing.T, name string, revision int, manifest string) string {
	t.Helper()
	rec, err := json.Marshal(map[string]any{"name": name, "namespace": "default", "version": revision, "manifest": manifest, "info": map[string]any{"status": "deployed"}})
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	secret, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
		"metadata": map[string]any{"name": fmt.Sprintf("sh.helm.release.v1.%s.v%d", name, revision), "namespace": "default", "labels": map[string]string{"owner": "helm", "name": name}},
		"data":     map[string][]byte{"release": []byte(base64.StdEncoding.EncodeToString(gz.Bytes()))}})
	if err != nil {
		t.Fatal(err)
	}
	return string(secret)
}
