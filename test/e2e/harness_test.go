package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// EnvCapture names a directory (e.g. ../../pkg/probe/testdata) into which TestSmoke
// writes every response it classifies, as JSON fixtures for pkg/probe's unit tests.
const EnvCapture = "MVPCTL_E2E_CAPTURE"

const jobsPath = "/apis/batch/v1/namespaces/default/jobs"

// capture is the fixture format shared with pkg/probe/classify_test.go.
type capture struct {
	Note        string `json:"note"`
	Version     string `json:"version"`
	Server      string `json:"server"`
	Method      string `json:"method"`
	Path        string `json:"path"`
	ForcedLocal bool   `json:"forcedLocal"`
	StatusCode  int    `json:"statusCode"`
	ContentType string `json:"contentType"`
	Body        string `json:"body"`
}

type observer struct {
	t   *testing.T
	dir string       // capture dir, or ""
	as  *http.Client // client to use instead of the admin one, or nil
}

// observe sends one request and classifies the answer (optionally forced local), and
// records it as a fixture named name (when capturing and name != "").
func (o *observer) observe(ctx context.Context, s *harness.Server, name, note, method, path, body string, forcedLocal bool) (probe.Classification, *harness.Response) {
	o.t.Helper()
	h := http.Header{"Accept": {"application/json"}}
	if body != "" {
		h.Set("Content-Type", "application/json")
	}
	if forcedLocal {
		h.Set(probe.ForcedLocalHeader, probe.ForcedLocalValue)
	}
	c := s.HTTPClient
	if o.as != nil {
		c = o.as
	}
	r, err := s.DoWith(ctx, c, method, path, h, strings.NewReader(body))
	if err != nil {
		o.t.Fatalf("%s %s on %s: %v", method, path, s.Name, err)
	}
	cl := probe.Classify(probe.Observation{StatusCode: r.StatusCode, ContentType: r.ContentType, Body: r.Body})
	o.t.Logf("%s %s %s (forced local %v) -> %d %s: %s", s.Name, method, path, forcedLocal, r.StatusCode, cl.Class, cl.Why)
	if o.dir != "" && name != "" {
		b, _ := json.MarshalIndent(capture{
			Note: note, Version: s.Version, Server: s.Name, Method: method, Path: path,
			ForcedLocal: forcedLocal, StatusCode: r.StatusCode, ContentType: r.ContentType, Body: string(r.Body),
		}, "", "  ")
		if err := os.WriteFile(filepath.Join(o.dir, name+".json"), append(b, '\n'), 0o644); err != nil {
			o.t.Errorf("capture %s: %v", name, err)
		}
	}
	return cl, r
}

// route observes a GET normally and forced local, and combines the two.
func (o *observer) route(ctx context.Context, s *harness.Server, name, note, path string) probe.Observed {
	o.t.Helper()
	localName := ""
	if name != "" {
		localName = name + "-forced-local"
	}
	n, _ := o.observe(ctx, s, name, note, http.MethodGet, path, "", false)
	l, _ := o.observe(ctx, s, localName, note+" (forced local)", http.MethodGet, path, "", true)
	obs := probe.Combine(n, l)
	o.t.Logf("%s GET %s: observed %s %s (%s)", s.Name, path, obs.Outcome, obs.Unavailable, obs.Why)
	return obs
}

func wantClass(t *testing.T, got probe.Classification, want probe.Class) {
	t.Helper()
	if got.Class != want {
		t.Errorf("class = %s (%s), want %s", got.Class, got.Why, want)
	}
}

func wantOutcome(t *testing.T, got probe.Observed, want mvp.Outcome, flavour mvp.Unavailable503) {
	t.Helper()
	if got.Outcome != want || got.Unavailable != flavour {
		t.Errorf("outcome = %s/%s (%s), want %s/%s", got.Outcome, got.Unavailable, got.Why, want, flavour)
	}
}

// TestSmoke proves the harness and the observations of
// docs/real-control-plane.md on two v1.36.3 servers sharing one etcd: A serves every
// API, B has batch/v1 turned off. One control plane is shared by all subtests; the
// destructive failure-path subtest runs last (skipped with -short).
func TestSmoke(t *testing.T) {
	harness.SkipIfUnsupported(t)
	const flagsA, flagsB = "--runtime-config=api/all=true", "--runtime-config=api/all=true,batch/v1=false"
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, ExtraFlags: []string{flagsA}},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, ExtraFlags: []string{flagsB}},
	)
	a, b := cp.Server("kas-a"), cp.Server("kas-b")
	o := &observer{t: t, dir: os.Getenv(EnvCapture)}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	t.Run("identity", func(t *testing.T) {
		leases, err := b.IdentityLeases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, l := range leases {
			found[l.Name] = true
			host := l.Labels["kubernetes.io/hostname"]
			if s := cp.Server(host); s != nil {
				if l.Name != s.LeaseID {
					t.Errorf("lease %s for hostname %s, computed %s", l.Name, host, s.LeaseID)
				}
				if got, want := l.Annotations["kubernetes.io/peer-advertise-address"], strings.TrimPrefix(s.URL, "https://"); got != want {
					t.Errorf("lease %s peer-advertise-address = %q, want %q", l.Name, got, want)
				}
			}
		}
		for _, s := range cp.Servers() {
			if !found[s.LeaseID] {
				t.Errorf("no identity lease %s for %s (have %v)", s.LeaseID, s.Name, found)
			}
			r, err := s.Get(ctx, "/version")
			if err != nil {
				t.Fatal(err)
			}
			var v struct{ GitVersion, Major, Minor string }
			if err := json.Unmarshal(r.Body, &v); err != nil || v.GitVersion != s.Version || v.Major != "1" || v.Minor != "36" {
				t.Errorf("%s /version = %s (%v), want %s", s.Name, r.Body, err, s.Version)
			}
			comm, _ := os.ReadFile("/proc/" + strconv.Itoa(s.PID()) + "/comm")
			if strings.TrimSpace(string(comm)) != "kube-apiserver" {
				t.Errorf("%s: PID %d is %q, want kube-apiserver", s.Name, s.PID(), comm)
			}
		}
	})

	t.Run("kubeconfig", func(t *testing.T) {
		for _, path := range []string{cp.Kubeconfig, b.Kubeconfig} {
			cfg, err := clientcmd.BuildConfigFromFlags("", path)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
				t.Errorf("kubeconfig %s: %v", path, err)
			}
		}
		cs, err := kubernetes.NewForConfig(a.RestConfig())
		if err != nil {
			t.Fatal(err)
		}
		if v, err := cs.Discovery().ServerVersion(); err != nil || v.GitVersion != a.Version {
			t.Errorf("RestConfig: version %v, %v", v, err)
		}
	})

	t.Run("proxied", func(t *testing.T) {
		o := &observer{t: t, dir: o.dir}
		// B does not serve batch/v1: proxied to A.
		obs := o.route(ctx, b, "v1.36.3-b-list-jobs", "list jobs on B (batch/v1 off) with A serving it", jobsPath)
		wantOutcome(t, obs, mvp.Proxied, "")
		if obs.Normal.StatusCode != 200 || obs.Local.StatusCode != 404 {
			t.Errorf("B jobs: normal %d forced-local %d, want 200 and 404", obs.Normal.StatusCode, obs.Local.StatusCode)
		}
		wantClass(t, obs.Local, probe.ClassUnknownResource)
		// A serves it itself.
		wantOutcome(t, o.route(ctx, a, "v1.36.3-a-list-jobs", "list jobs on A (serves batch/v1)", jobsPath), mvp.Local, "")
		// Nobody serves this group.
		wantOutcome(t, o.route(ctx, b, "v1.36.3-b-unknown-group", "a group no server serves", "/apis/nosuch.example.com/v1/namespaces/default/things"), mvp.NotFound, "")
		// Discovery paths are never proxied: B's /apis/batch/v1 is 404 text/plain.
		c, _ := o.observe(ctx, b, "v1.36.3-b-get-batch-v1-discovery", "GET /apis/batch/v1 on B: non-resource requests are not proxied", http.MethodGet, "/apis/batch/v1", "", false)
		wantClass(t, c, probe.ClassUnknownResource)
	})

	t.Run("shapes", func(t *testing.T) {
		o := &observer{t: t, dir: o.dir}
		// Known group/version, unknown resource: Status NotFound with empty details.
		c, r := o.observe(ctx, a, "v1.36.3-a-unknown-resource", "unknown resource in a served group/version", http.MethodGet, "/apis/batch/v1/namespaces/default/nosuchresources", "", true)
		wantClass(t, c, probe.ClassUnknownResource)
		if st := probe.ParseStatus(r.ContentType, r.Body); st == nil || st.Message != mvp.NotFoundMessage {
			t.Errorf("unknown resource: want Status %q, got %s", mvp.NotFoundMessage, r)
		}
		// Known group, unknown version: same shape.
		c, _ = o.observe(ctx, a, "v1.36.3-a-unknown-version", "unknown version of a served group", http.MethodGet, "/apis/batch/v9/namespaces/default/jobs", "", true)
		if c.Class != probe.ClassUnknownResource {
			t.Errorf("unknown version of a served group: %s (%s)", c.Class, c.Why)
		}
		// A missing object of a served resource: NotFound naming the object -> served,
		// both on A and proxied through B.
		c, _ = o.observe(ctx, a, "v1.36.3-a-missing-job", "a job that does not exist, on A", http.MethodGet, jobsPath+"/nope", "", false)
		wantClass(t, c, probe.ClassServed)
		obs := o.route(ctx, b, "v1.36.3-b-missing-job", "a job that does not exist, via B (proxied)", jobsPath+"/nope")
		wantOutcome(t, obs, mvp.Proxied, "")
		wantClass(t, obs.Normal, probe.ClassServed)
	})

	t.Run("verbs", func(t *testing.T) {
		o := &observer{t: t, dir: o.dir}
		job := `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"smoke"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`
		c, _ := o.observe(ctx, b, "v1.36.3-b-create-job", "create a job via B (proxied to A)", http.MethodPost, jobsPath, job, false)
		if c.StatusCode != 201 {
			t.Errorf("create via B: %d %s", c.StatusCode, c.Why)
		}
		c, _ = o.observe(ctx, b, "v1.36.3-b-create-job-again", "create the same job again via B: AlreadyExists from A", http.MethodPost, jobsPath, job, false)
		wantClass(t, c, probe.ClassServed)
		if c.StatusCode != 409 {
			t.Errorf("second create via B: %d, want 409", c.StatusCode)
		}
		obs := o.route(ctx, b, "v1.36.3-b-get-job-status", "jobs/status subresource via B", jobsPath+"/smoke/status")
		wantOutcome(t, obs, mvp.Proxied, "")
		t0 := time.Now()
		obs = o.route(ctx, b, "v1.36.3-b-watch-jobs", "watch jobs via B with timeoutSeconds=1", jobsPath+"?watch=1&timeoutSeconds=1")
		wantOutcome(t, obs, mvp.Proxied, "")
		t.Logf("watch pair took %s", time.Since(t0).Round(time.Millisecond))
		obs = o.route(ctx, b, "", "", "/apis/batch/v1/cronjobs")
		wantOutcome(t, obs, mvp.Proxied, "")
	})

	t.Run("discovery", func(t *testing.T) {
		hasBatch := func(nopeer bool) bool {
			d, err := b.Discovery(ctx, "/apis", nopeer)
			if err != nil {
				t.Fatal(err)
			}
			return harness.GVRs(d)[harness.GVR{Group: "batch", Version: "v1", Resource: "jobs"}]
		}
		if hasBatch(true) {
			t.Error("B's nopeer /apis lists batch/v1 jobs; want absent")
		}
		if !hasBatch(false) {
			t.Error("B's peer-aggregated /apis lacks batch/v1 jobs; want present")
		}
	})

	t.Run("denied", func(t *testing.T) {
		c, err := cp.HTTPClientFor("e2e-nobody")
		if err != nil {
			t.Fatal(err)
		}
		o := &observer{t: t, dir: o.dir, as: c}
		cl, _ := o.observe(ctx, b, "v1.36.3-b-list-jobs-unprivileged", "list jobs via B as a user without RBAC: denied by B before MVP", http.MethodGet, jobsPath, "", false)
		wantClass(t, cl, probe.ClassDenied)
	})

	t.Run("failure-paths", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: skipping kill/stop/restart of a peer (~1 min)")
		}
		o := &observer{t: t, dir: o.dir}
		// SIGKILL A: B still knows A (identity lease and, for ~15 s, its endpoint key).
		if err := cp.Kill("kas-a"); err != nil {
			t.Fatal(err)
		}
		obs := o.route(ctx, b, "v1.36.3-b-list-jobs-peer-killed", "A was SIGKILLed just before: transport error", jobsPath)
		wantOutcome(t, obs, mvp.Unavailable, mvp.Transport)

		// After the endpoint key's TTL (15 s): endpoint resolution fails.
		t0 := time.Now()
		for {
			c, _ := o.observe(ctx, b, "", "", http.MethodGet, jobsPath, "", false)
			if c.Class == probe.ClassUnavailableEndpoint {
				break
			}
			if time.Since(t0) > 60*time.Second {
				t.Fatalf("B still answers %s %s 60s after A was killed; want unavailable-endpoint", c.Class, c.Why)
			}
			time.Sleep(time.Second)
		}
		t.Logf("endpoint-resolution 503 after %s", time.Since(t0).Round(time.Millisecond))
		obs = o.route(ctx, b, "v1.36.3-b-list-jobs-peer-endpoint-expired", "A was SIGKILLed and its peer endpoint key expired", jobsPath)
		wantOutcome(t, obs, mvp.Unavailable, mvp.EndpointResolution)

		// Restart A (same hostname, port, certs): proxying comes back.
		t0 = time.Now()
		if err := cp.Restart(ctx, "kas-a"); err != nil {
			t.Fatal(err)
		}
		if err := cp.WaitPeers(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("restart of A took %s", time.Since(t0).Round(time.Millisecond))
		wantOutcome(t, o.route(ctx, b, "", "", jobsPath), mvp.Proxied, "")

		// SIGTERM A: it deletes its identity lease, so B forgets it: 404, not 503.
		if err := cp.Stop("kas-a"); err != nil {
			t.Fatal(err)
		}
		t0 = time.Now()
		for {
			obs = o.route(ctx, b, "v1.36.3-b-list-jobs-peer-stopped", "A was stopped with SIGTERM (lease deleted)", jobsPath)
			if obs.Outcome == mvp.NotFound || time.Since(t0) > 30*time.Second {
				break
			}
			time.Sleep(time.Second)
		}
		wantOutcome(t, obs, mvp.NotFound, "")
		leases, err := b.IdentityLeases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range leases {
			if l.Name == a.LeaseID {
				t.Errorf("A's identity lease %s still present after SIGTERM", a.LeaseID)
			}
		}
	})
}
