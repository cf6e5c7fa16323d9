package discover

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// leaseJSON is one identity lease as kube-apiserver serves it.
func leaseJSON(name, holder, rv string) string {
	return fmt.Sprintf(`{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":%q,"namespace":"kube-system","resourceVersion":%q,`+
		`"labels":{"apiserver.kubernetes.io/identity":"kube-apiserver","kubernetes.io/hostname":"host-%s"},`+
		`"annotations":{"kubernetes.io/peer-advertise-address":"10.0.0.1:6443"}},`+
		`"spec":{"holderIdentity":%q,"leaseDurationSeconds":3600,"renewTime":"2026-11-23T12:00:00.000000Z"}}`, name, rv, name, holder)
}

// watchServer speaks the list and watch protocol of kube-apiserver for leases. Each request
// takes the next step of script: a list answer, a watch stream (events, then the stream
// ends), or a status code.
type watchServer struct {
	mu     sync.Mutex
	script []func(w http.ResponseWriter, r *http.Request)
	reqs   []string
}

func (s *watchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r.URL.RawQuery)
	var step func(http.ResponseWriter, *http.Request)
	if len(s.script) > 0 {
		step, s.script = s.script[0], s.script[1:]
	}
	s.mu.Unlock()
	if step == nil {
		<-r.Context().Done() // script done: a watch that stays quiet
		return
	}
	if r.URL.Path != "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases" || r.URL.Query().Get("labelSelector") != "apiserver.kubernetes.io/identity=kube-apiserver" {
		http.Error(w, "unexpected request "+r.URL.String(), http.StatusBadRequest)
		return
	}
	step(w, r)
}

func list(rv string, leases ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "" {
			http.Error(w, "want a list", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"LeaseList","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":%q},"items":[%s]}`, rv, strings.Join(leases, ","))
	}
}

func stream(fromRV string, events ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" || r.URL.Query().Get("resourceVersion") != fromRV {
			http.Error(w, "want a watch from "+fromRV+", got "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		for _, e := range events {
			fmt.Fprintln(w, e)
			w.(http.Flusher).Flush()
		}
	}
}

func status(code int, reason string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"leases.coordination.k8s.io is forbidden: User \"bob\" cannot list resource \"leases\"","reason":%q,"code":%d}`, reason, code)
	}
}

func event(typ, obj string) string { return fmt.Sprintf(`{"type":%q,"object":%s}`, typ, obj) }

// TestLeaseWatch: list, then watch from the list's resourceVersion; every change delivers the
// whole set; a renewal by the same holder is a change too (its renew time), a stream that
// ends is watched again from the last resourceVersion (a bookmark's included), a 410 in the
// stream or answering the watch request relists at once, a 403 is a failure that names the
// RBAC and is retried.
func TestLeaseWatch(t *testing.T) {
	a1, b1 := leaseJSON("apiserver-a", "a_1", "11"), leaseJSON("apiserver-b", "b_1", "12")
	b2 := leaseJSON("apiserver-b", "b_2", "14")
	c1 := leaseJSON("apiserver-c", "c_1", "15")
	srv := &watchServer{script: []func(http.ResponseWriter, *http.Request){
		status(http.StatusForbidden, "Forbidden"),
		list("12", a1, b1),
		stream("12", event("DELETED", leaseJSON("apiserver-a", "a_1", "13")), event("MODIFIED", b2)),
		stream("14", event("BOOKMARK", `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":"20"}}`)),
		stream("20", event("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old resource version"}`)),
		list("21", b2, c1),
		status(http.StatusGone, "Expired"),
		list("22", c1),
	}}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var (
		mu        sync.Mutex
		sets      []string
		failures  []string
		recovered int
	)
	w := &LeaseWatch{
		Config: &rest.Config{Host: ts.URL},
		OnLeases: func(set []IdentityLease) {
			var parts []string
			for _, l := range set {
				if l.Duration != time.Hour || l.Address != "10.0.0.1:6443" || l.Hostname != "host-"+l.Name || l.Renew.IsZero() {
					t.Errorf("lease %+v: fields not read", l)
				}
				parts = append(parts, l.Name+"="+l.Holder)
			}
			mu.Lock()
			defer mu.Unlock()
			sets = append(sets, strings.Join(parts, ","))
			if len(sets) == 5 {
				cancel()
			}
		},
		OnFailure: func(err error, retryIn time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			failures = append(failures, err.Error())
		},
		OnRecovered: func() { mu.Lock(); recovered++; mu.Unlock() },
		MinBackoff:  10 * time.Millisecond,
	}
	w.Run(ctx)
	want := []string{
		"apiserver-a=a_1,apiserver-b=b_1",
		"apiserver-b=b_1",
		"apiserver-b=b_2",
		"apiserver-b=b_2,apiserver-c=c_1",
		"apiserver-c=c_1",
	}
	if strings.Join(sets, "\n") != strings.Join(want, "\n") {
		t.Errorf("sets:\n%s\nwant:\n%s\nrequests: %q", strings.Join(sets, "\n"), strings.Join(want, "\n"), srv.reqs)
	}
	if len(failures) != 1 || !strings.Contains(failures[0], "forbidden") || !strings.Contains(failures[0], "grant list and watch on leases in kube-system") {
		t.Errorf("failures %q: want one 403 naming the RBAC", failures)
	}
	if recovered != 1 {
		t.Errorf("recovered %d times, want 1", recovered)
	}
}

// TestRequireLeases: with RequireLeases, a lease list that fails is ErrLeasesNotListed, and
// the kubeconfig's server is not read in the leases' stead.
func TestRequireLeases(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		status(http.StatusForbidden, "Forbidden")(w, r)
	}))
	defer ts.Close()
	_, err := Discover(context.Background(), Options{Config: &rest.Config{Host: ts.URL}, RequireLeases: true, Timeout: 5 * time.Second})
	if !errors.Is(err, ErrLeasesNotListed) || !strings.Contains(err.Error(), "403") {
		t.Errorf("err %v: want ErrLeasesNotListed with the 403", err)
	}
	if len(paths) != 1 {
		t.Errorf("requests %q: want the lease list only", paths)
	}
}

// TestLeaseWatchListOnly: a user who may list the leases but not watch them (seen on real
// servers with the RBAC of deploy/rbac before the watch verb): each list still delivers the
// leases, the watch's 403 is a failure each time, and the watch never counts as recovered.
func TestLeaseWatchListOnly(t *testing.T) {
	var script []func(http.ResponseWriter, *http.Request)
	for i := 0; i < 3; i++ {
		script = append(script, list("7", leaseJSON("apiserver-a", "a_1", "7")), status(http.StatusForbidden, "Forbidden"))
	}
	ts := httptest.NewServer(&watchServer{script: script})
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var mu sync.Mutex
	var sets, failures, recovered int
	w := &LeaseWatch{
		Config:   &rest.Config{Host: ts.URL},
		OnLeases: func([]IdentityLease) { mu.Lock(); sets++; mu.Unlock() },
		OnFailure: func(error, time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if failures++; failures == 3 {
				cancel()
			}
		},
		OnRecovered: func() { mu.Lock(); recovered++; mu.Unlock() },
		MinBackoff:  10 * time.Millisecond,
	}
	w.Run(ctx)
	if sets != 3 || failures != 3 || recovered != 0 {
		t.Errorf("%d sets, %d failures, %d recoveries; want 3, 3, 0", sets, failures, recovered)
	}
}
