package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestKubeadmConfigRBAC: the roles of deploy/rbac/mvpctl-clusterrole.yaml, created on a real
// apiserver and bound to a user. With mvpctl-reader and mvpctl-leases only, the kubeadm-config
// read is forbidden: one warning naming the ConfigMap and the RBAC, and a complete snapshot
// (exit 0). With the file's mvpctl-kubeadm-config Role bound too, the ConfigMap is read and
// every server's flags are stated.
func TestKubeadmConfigRBAC(t *testing.T) {
	harness.SkipIfUnsupported(t)
	cp := harness.Start(t, harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, DefaultProxyConfig: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const user = "mvpctl-ci"
	admin := cp.Server("kas-a")
	post := func(path string, obj any) {
		t.Helper()
		body, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		r, err := admin.Do(ctx, http.MethodPost, path, http.Header{"Content-Type": {"application/json"}}, strings.NewReader(string(body)))
		if err != nil || r.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %v %v", path, err, r)
		}
	}
	post("/api/v1/namespaces/kube-system/configmaps", map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "kubeadm-config", "namespace": "kube-system"}, "data": map[string]string{"ClusterConfiguration": kubeadmClusterConfiguration}})

	// The file's roles, as written; bindings of them to the user.
	data, err := os.ReadFile("../../deploy/rbac/mvpctl-clusterrole.yaml")
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]map[string]any{}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		if k, _ := o["kind"].(string); k == "ClusterRole" || k == "Role" {
			roles[o["metadata"].(map[string]any)["name"].(string)] = o
		}
	}
	const rbacAPI = "/apis/rbac.authorization.k8s.io/v1"
	grant := func(name string) {
		t.Helper()
		role := roles[name]
		if role == nil {
			t.Fatalf("deploy/rbac/mvpctl-clusterrole.yaml has no role %s", name)
		}
		subjects := []map[string]string{{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}}
		if role["kind"] == "ClusterRole" {
			post(rbacAPI+"/clusterroles", role)
			post(rbacAPI+"/clusterrolebindings", map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": name},
				"roleRef": map[string]string{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name}, "subjects": subjects})
			return
		}
		post(rbacAPI+"/namespaces/kube-system/roles", role)
		post(rbacAPI+"/namespaces/kube-system/rolebindings", map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": map[string]any{"name": name, "namespace": "kube-system"},
			"roleRef": map[string]string{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name}, "subjects": subjects})
	}
	grant("mvpctl-reader")
	grant("mvpctl-leases")

	kubeconfig, c := userKubeconfig(t, cp, admin, user)
	// RBAC is enforced from an informer cache: wait until path answers code to the user.
	waitFor := func(path string, code int) {
		t.Helper()
		for {
			r, err := admin.DoWith(ctx, c, http.MethodGet, path, nil, nil)
			if err == nil && r.StatusCode == code {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("GET %s as %s: %v %v, want %d", path, user, err, r, code)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	const cmPath = "/api/v1/namespaces/kube-system/configmaps/kubeadm-config"
	waitFor("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", http.StatusOK)
	waitFor(cmPath, http.StatusForbidden)

	dir := t.TempDir()
	snap, r := mvpctlSnapshot(t, dir+"/forbidden.json", []int{0}, "--kubeconfig", kubeconfig)
	warnings := 0
	for _, line := range strings.Split(string(r.Stderr), "\n") {
		if strings.Contains(line, "kubeadm-config") {
			warnings++
		}
	}
	if warnings != 1 || !strings.Contains(string(r.Stderr), "warning: cannot read ConfigMap kube-system/kubeadm-config (403 Forbidden): the installer's configuration is not used; to use it, grant get on configmaps/kubeadm-config in kube-system (the Role and RoleBinding mvpctl-kubeadm-config in deploy/rbac/mvpctl-clusterrole.yaml)") {
		t.Errorf("want one warning about the forbidden ConfigMap, got:\n%s", r.Stderr)
	}
	if in := snap.Cluster.Installer; in == nil || in.KubeadmConfig != snapshot.KubeadmConfigForbidden || snap.Servers[0].Stated != nil {
		t.Errorf("installer %+v, stated %+v", snap.Cluster.Installer, snap.Servers[0].Stated)
	}
	t.Logf("without the Role: exit %d, stderr %s", r.Exit, strings.TrimSpace(string(r.Stderr)))

	grant("mvpctl-kubeadm-config")
	waitFor(cmPath, http.StatusOK)
	snap, r = mvpctlSnapshot(t, dir+"/read.json", []int{0}, "--kubeconfig", kubeconfig)
	if strings.Contains(string(r.Stderr), "kubeadm-config") || snap.Cluster.Installer == nil || snap.Cluster.Installer.KubeadmConfig != snapshot.KubeadmConfigRead ||
		snap.Servers[0].Stated == nil || !strings.HasPrefix(snap.Servers[0].Stated.Source, "ConfigMap kube-system/kubeadm-config") {
		t.Errorf("with the Role: installer %+v, stated %+v, stderr %s", snap.Cluster.Installer, snap.Servers[0].Stated, r.Stderr)
	}
}

// userKubeconfig is admin's kubeconfig with a client certificate of user instead, and an HTTP
// client of that user.
func userKubeconfig(t *testing.T, cp *harness.ControlPlane, admin *harness.Server, user string) (string, *http.Client) {
	t.Helper()
	certPath, keyPath, err := cp.PKI.ClientCert(user)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(admin.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		a.ClientCertificate, a.ClientKey = certPath, keyPath
	}
	kubeconfig := t.TempDir() + "/kubeconfig-" + user
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	c, err := cp.HTTPClientFor(user)
	if err != nil {
		t.Fatal(err)
	}
	return kubeconfig, c
}
