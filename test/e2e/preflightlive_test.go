package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestPreflightLiveLastApplied, on a real v1.36 apiserver that serves networking.k8s.io/v1beta1
// (--runtime-config), which 1.37 removes: live objects of its ipaddresses, written through
// networking.k8s.io/v1, carry the last-applied-configuration `kubectl apply` leaves. A live
// `mvpctl preflight --to 1.37` reads them in the same metadata-only list as their managedFields
// and judges each by the apiVersion and kind its annotation states: the object last applied
// as networking.k8s.io/v1beta1 is blocking (MVP070, removed in 1.37) and named "live" with its
// name; the one applied as networking.k8s.io/v1 passes; an annotation that is not JSON is said
// once on stderr, never judged.
func TestPreflightLiveLastApplied(t *testing.T) {
	harness.SkipIfUnsupported(t)
	t0 := time.Now()
	cp := harness.Start(t, harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=networking.k8s.io/v1beta1=true"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for name, applied := range map[string]string{
		"10.96.0.90": `{"apiVersion":"networking.k8s.io/v1beta1","kind":"IPAddress","metadata":{"annotations":{},"name":"10.96.0.90"},"spec":{"parentRef":{"group":"","name":"kubernetes","namespace":"default","resource":"services"}}}` + "\n",
		"10.96.0.91": `{"apiVersion":"networking.k8s.io/v1","kind":"IPAddress","metadata":{"annotations":{},"name":"10.96.0.91"},"spec":{"parentRef":{"group":"","name":"kubernetes","namespace":"default","resource":"services"}}}` + "\n",
		"10.96.0.92": "apiVersion: networking.k8s.io/v1beta1",
	} {
		body, err := json.Marshal(map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
			"metadata": map[string]any{"name": name, "annotations": map[string]string{"kubectl.kubernetes.io/last-applied-configuration": applied}},
			"spec":     map[string]any{"parentRef": map[string]string{"group": "", "resource": "services", "namespace": "default", "name": "kubernetes"}}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := cp.Server("kas-a").Do(ctx, http.MethodPost, "/apis/networking.k8s.io/v1/ipaddresses", http.Header{"Content-Type": {"application/json"}}, strings.NewReader(string(body)))
		if err != nil || r.StatusCode != http.StatusCreated {
			t.Fatalf("POST IPAddress %s: %v %v", name, err, r)
		}
	}

	r := runMvpctl(t, "preflight", "--to", "1.37", "-o", "json", "--kubeconfig", cp.Kubeconfig, "--no-baseline", "--evidence-window", "1s")
	var rep struct {
		Findings []struct {
			Check, Severity, Subject, Message string
			Evidence                          []string
		}
		Objects []struct {
			Source, Name, APIVersion, Kind, Verdict, Removed string
		}
		ObjectsSummary struct{ Objects, Live int }
	}
	if err := json.Unmarshal(r.Stdout, &rep); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	if r.Exit != 3 {
		t.Errorf("%s\nwant exit 3", r)
	}
	rows := map[string]string{}
	for _, o := range rep.Objects {
		rows[o.Name] = strings.Join([]string{o.Source, o.APIVersion, o.Kind, o.Verdict, o.Removed}, " ")
	}
	for name, want := range map[string]string{"10.96.0.90": "live networking.k8s.io/v1beta1 IPAddress removed 1.37", "10.96.0.91": "live networking.k8s.io/v1 IPAddress served "} {
		if rows[name] != want {
			t.Errorf("row of %s: %q, want %q (rows %v)", name, rows[name], want, rows)
		}
	}
	if _, ok := rows["10.96.0.92"]; ok || rep.ObjectsSummary.Live != 2 {
		t.Errorf("rows %v, %d live: want the two readable annotations only", rows, rep.ObjectsSummary.Live)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Check == "MVP070" && f.Subject == "networking.k8s.io/v1beta1 IPAddress" {
			found = f.Severity == "blocking" && strings.Contains(f.Message, "Kubernetes removed it in 1.37") && strings.Contains(strings.Join(f.Evidence, "\n"), "objects: live 10.96.0.90")
			t.Logf("%s %s %s: %s; %v", f.Check, f.Severity, f.Subject, f.Message, f.Evidence)
		}
		if strings.HasPrefix(f.Check, "MVP07") && strings.HasPrefix(f.Subject, "networking.k8s.io/v1 ") {
			t.Errorf("a finding on the served apiVersion: %+v", f)
		}
	}
	if !found {
		t.Errorf("no blocking MVP070 on networking.k8s.io/v1beta1 IPAddress naming live 10.96.0.90, removed in 1.37: %+v", rep.Findings)
	}
	if !strings.Contains(string(r.Stderr), "1 live object(s) with a last-applied-configuration annotation that states no apiVersion and kind") {
		t.Errorf("%s\nwant the unreadable annotation said", r)
	}
	t.Logf("timing: TestPreflightLiveLastApplied took %s", time.Since(t0).Round(time.Millisecond))
}
