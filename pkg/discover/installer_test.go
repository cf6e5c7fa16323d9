package discover

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

// kubeadmConfigMap answers GET kube-system/kubeadm-config with a ConfigMap holding doc, as
// kube-apiserver serves it.
func kubeadmConfigMap(t *testing.T, doc string) http.HandlerFunc {
	t.Helper()
	body, err := json.Marshal(map[string]any{"kind": "ConfigMap", "apiVersion": "v1",
		"metadata": map[string]any{"name": "kubeadm-config", "namespace": "kube-system", "resourceVersion": "231"},
		"data":     map[string]string{"ClusterConfiguration": doc}})
	if err != nil {
		t.Fatal(err)
	}
	return answer(200, "application/json", string(body))
}

// TestKubeadmConfig: kube-system/kubeadm-config is read when it exists and RBAC allows; a 404
// is a cluster kubeadm did not install (recorded, no warning); a 403 or a malformed ConfigMap
// is one warning naming the ConfigMap, and the snapshot is taken without it. A --manifest
// states its server's flags over the ConfigMap's.
func TestKubeadmConfig(t *testing.T) {
	p := dt.NewPKI(t)
	v1beta4, err := os.ReadFile("../installer/testdata/clusterconfiguration-v1beta4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fromConfigMap := []snapshot.Flag{{Name: "feature-gates", Value: "SomeOtherGate=false,UnknownVersionInteroperabilityProxy=true"}, {Name: "runtime-config", Value: "resource.k8s.io/v1beta2=true"}}
	kcpFlags := snapshot.StatedFlags{Source: "KubeadmControlPlane default/cp (controlplane.cluster.x-k8s.io/v1beta2, …)", Flags: []snapshot.Flag{{Name: "runtime-config", Value: "api/all=true"}}}
	manifestFlags := snapshot.StatedFlags{Source: "manifest /m.yaml", Flags: []snapshot.Flag{{Name: "peer-ca-file", Value: "/ca.crt"}}}
	notFoundStatus := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"kubeadm-config\" not found","reason":"NotFound","details":{"name":"kubeadm-config","kind":"configmaps"},"code":404}`
	forbiddenStatus := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"kubeadm-config\" is forbidden: User \"ci\" cannot get resource \"configmaps\" in API group \"\" in the namespace \"kube-system\"","reason":"Forbidden","details":{"name":"kubeadm-config","kind":"configmaps"},"code":403}`
	for _, tc := range []struct {
		name        string
		answer      http.HandlerFunc // nil: the fake's own 404
		manifest    bool
		kcp         bool
		wantState   string
		wantWarning []string
		wantStated  *snapshot.StatedFlags
	}{
		{name: "no such path", wantState: snapshot.KubeadmConfigNotPresent},
		{name: "not found", answer: answer(404, "application/json", notFoundStatus), wantState: snapshot.KubeadmConfigNotPresent},
		{name: "forbidden", answer: answer(403, "application/json", forbiddenStatus), wantState: snapshot.KubeadmConfigForbidden,
			wantWarning: []string{"cannot read ConfigMap kube-system/kubeadm-config (403 Forbidden)", "get on configmaps/kubeadm-config in kube-system", "deploy/rbac/mvpctl-clusterrole.yaml"}},
		{name: "malformed", answer: kubeadmConfigMap(t, strings.Replace(string(v1beta4), "v1beta4", "v1beta9", 1)), wantState: snapshot.KubeadmConfigUnreadable,
			wantWarning: []string{"ConfigMap kube-system/kubeadm-config is malformed: data.ClusterConfiguration: apiVersion \"kubeadm.k8s.io/v1beta9\""}},
		{name: "server error", answer: answer(500, "application/json", `{"kind":"Status","status":"Failure","message":"etcdserver: request timed out","code":500}`), wantState: snapshot.KubeadmConfigUnreadable,
			wantWarning: []string{"cannot read ConfigMap kube-system/kubeadm-config", "HTTP 500"}},
		{name: "a 64 MB answer", answer: kubeadmConfigMap(t, string(v1beta4)+"\n# "+strings.Repeat("x", 64<<20)), wantState: snapshot.KubeadmConfigUnreadable,
			wantWarning: []string{"cannot read ConfigMap kube-system/kubeadm-config", "larger than 2 MiB, more than a ConfigMap holds"}},
		{name: "read", answer: kubeadmConfigMap(t, string(v1beta4)), wantState: snapshot.KubeadmConfigRead,
			wantStated: &snapshot.StatedFlags{Source: "ConfigMap kube-system/kubeadm-config (kubeadm.k8s.io/v1beta4 ClusterConfiguration, apiServer.extraArgs)", Flags: fromConfigMap}},
		{name: "a manifest over the ConfigMap", answer: kubeadmConfigMap(t, string(v1beta4)), manifest: true, wantState: snapshot.KubeadmConfigRead, wantStated: &manifestFlags},
		{name: "a KubeadmControlPlane over the ConfigMap", answer: kubeadmConfigMap(t, string(v1beta4)), kcp: true, wantState: snapshot.KubeadmConfigRead, wantStated: &kcpFlags},
		{name: "a manifest over a KubeadmControlPlane", manifest: true, kcp: true, wantState: snapshot.KubeadmConfigNotPresent, wantStated: &manifestFlags},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &dt.Server{GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}
			if tc.answer != nil {
				f.Override = map[string]http.HandlerFunc{kubeadmConfigPath: tc.answer}
			}
			f.Start(t, p)
			var warnings []string
			opts := Options{Config: dt.ClientConfig(p, f.URL(), ""), Warn: func(s string) { warnings = append(warnings, s) }}
			if tc.manifest {
				opts.Manifests = []Manifest{{Server: f.Addr(), Path: "/m.yaml", Flags: manifestFlags}}
			}
			if tc.kcp {
				opts.ControlPlane = &ControlPlaneConfig{Path: "/kcp.yaml", Flags: kcpFlags}
			}
			snap, err := discoverRT(t, context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			in := snap.Cluster.Installer
			if in == nil || in.KubeadmConfig != tc.wantState {
				t.Fatalf("installer %+v, want kubeadmConfig %s", in, tc.wantState)
			}
			var ours []string
			for _, w := range warnings {
				if strings.Contains(w, "kubeadm-config") {
					ours = append(ours, w)
				}
			}
			if len(tc.wantWarning) == 0 && len(ours) > 0 || len(tc.wantWarning) > 0 && len(ours) != 1 {
				t.Fatalf("warnings %q, want %d about kubeadm-config", ours, min(1, len(tc.wantWarning)))
			}
			for _, w := range tc.wantWarning {
				if !strings.Contains(ours[0], w) || strings.Contains(ours[0], "\n") {
					t.Errorf("warning %q: want one line containing %q", ours[0], w)
				}
			}
			if got := snap.Servers[0].Stated; !reflect.DeepEqual(got, tc.wantStated) {
				t.Errorf("stated %+v, want %+v", got, tc.wantStated)
			}
			if tc.kcp != (in.KubeadmControlPlane == "/kcp.yaml") {
				t.Errorf("installer %+v: the KubeadmControlPlane file recorded: %t, want %t", in, in.KubeadmControlPlane != "", tc.kcp)
			}
			if tc.wantState == snapshot.KubeadmConfigRead && in.KubernetesVersion != "v1.36.3" {
				t.Errorf("kubernetesVersion %q", in.KubernetesVersion)
			}
		})
	}
	t.Run("a manifest for a server the snapshot does not have", func(t *testing.T) {
		f := (&dt.Server{GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}).Start(t, p)
		_, err := Discover(context.Background(), Options{Config: dt.ClientConfig(p, f.URL(), ""), Manifests: []Manifest{{Server: "cp-9", Path: "/m.yaml", Flags: manifestFlags}}})
		if err == nil || !strings.Contains(err.Error(), `--manifest cp-9=/m.yaml: no apiserver "cp-9" in the snapshot (apiservers: `+f.Addr()+")") {
			t.Fatalf("error %v", err)
		}
	})
}

// TestKubeadmConfigDetailRedacted: the reason kubeadm-config could not be read is kept in the
// snapshot (Installer.Detail) redacted as the warning is: a proxy quoting the request's
// Authorization header puts no token into it.
func TestKubeadmConfigDetailRedacted(t *testing.T) {
	p := dt.NewPKI(t)
	const token = "eyJhbGciOiJSUzI1NiJ9.a3ViZWFkbS1jb25maWctdG9rZW4.sig"
	f := &dt.Server{GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true), Token: token}
	f.Override = map[string]http.HandlerFunc{kubeadmConfigPath: func(w http.ResponseWriter, r *http.Request) {
		dt.WriteStatus(w, http.StatusInternalServerError, "InternalError", "failed for "+r.Header.Get("Authorization"))
	}}
	f.Start(t, p)
	var warnings []string
	snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, f.URL(), token), Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	in := snap.Cluster.Installer
	if in == nil || in.KubeadmConfig != snapshot.KubeadmConfigUnreadable || !strings.Contains(in.Detail, "failed for Bearer [REDACTED]") {
		t.Fatalf("installer %+v, want unreadable with the token redacted", in)
	}
	if strings.Contains(in.Detail, token) || strings.Contains(strings.Join(warnings, "\n"), token) {
		t.Errorf("the token leaked: detail %q, warnings %q", in.Detail, warnings)
	}
}
