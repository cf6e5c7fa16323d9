package installer

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// configMapJSON is the kubeadm-config ConfigMap as the API serves it, holding doc.
func configMapJSON(t *testing.T, doc string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": KubeadmConfigName, "namespace": KubeadmConfigNamespace},
		"data":     map[string]string{"ClusterConfiguration": doc}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantError checks err against want: one line containing want, or no error when want is "".
// It returns whether the result is to be checked (no error was wanted).
func wantError(t *testing.T, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return true
	}
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v, want one line containing %q", err, want)
	}
	return false
}

func TestParseKubeadmConfigMap(t *testing.T) {
	v1beta3, v1beta4 := readTestdata(t, "clusterconfiguration-v1beta3.yaml"), readTestdata(t, "clusterconfiguration-v1beta4.yaml")
	for _, tc := range []struct {
		name        string
		body        []byte
		wantVersion string
		wantK8s     string
		wantFlags   []snapshot.Flag
		wantErr     string
	}{
		{name: "v1beta3 extraArgs map", body: configMapJSON(t, v1beta3), wantVersion: KubeadmV1Beta3, wantK8s: "v1.30.4",
			wantFlags: []snapshot.Flag{{Name: "feature-gates", Value: "UnknownVersionInteroperabilityProxy=true"}, {Name: "runtime-config", Value: "batch/v1=false,resource.k8s.io/v1beta2=true"}}},
		{name: "v1beta4 extraArgs list, a repeated feature-gates merged", body: configMapJSON(t, v1beta4), wantVersion: KubeadmV1Beta4, wantK8s: "v1.36.3",
			wantFlags: []snapshot.Flag{{Name: "feature-gates", Value: "SomeOtherGate=false,UnknownVersionInteroperabilityProxy=true"}, {Name: "runtime-config", Value: "resource.k8s.io/v1beta2=true"}}},
		{name: "no extraArgs: kubeadm's defaults, no proxy flag", body: configMapJSON(t, "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.36.3\napiServer: {}\n"),
			wantVersion: KubeadmV1Beta4, wantK8s: "v1.36.3"},
		{name: "bad YAML", body: configMapJSON(t, "apiServer: [\n"), wantErr: "data.ClusterConfiguration: not YAML"},
		{name: "unknown apiVersion", body: configMapJSON(t, strings.Replace(v1beta4, "kubeadm.k8s.io/v1beta4", "kubeadm.k8s.io/v1beta2", 1)),
			wantErr: `apiVersion "kubeadm.k8s.io/v1beta2": mvpctl reads ClusterConfiguration kubeadm.k8s.io/v1beta3 and kubeadm.k8s.io/v1beta4`},
		{name: "v1beta4 shape under v1beta3", body: configMapJSON(t, strings.Replace(v1beta4, "kubeadm.k8s.io/v1beta4", "kubeadm.k8s.io/v1beta3", 1)),
			wantErr: "kubeadm.k8s.io/v1beta3: apiServer.extraArgs is not a map of flag name to value (as kubeadm.k8s.io/v1beta3 writes it)"},
		{name: "v1beta3 shape under v1beta4", body: configMapJSON(t, strings.Replace(v1beta3, "kubeadm.k8s.io/v1beta3", "kubeadm.k8s.io/v1beta4", 1)),
			wantErr: "kubeadm.k8s.io/v1beta4: apiServer.extraArgs is not a list of {name, value} (as kubeadm.k8s.io/v1beta4 writes it)"},
		{name: "v1beta4 arg without a name", body: configMapJSON(t, "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\napiServer:\n  extraArgs:\n  - value: x\n"),
			wantErr: "apiServer.extraArgs[0] has no name"},
		{name: "a malformed feature gate", body: configMapJSON(t, "apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\napiServer:\n  extraArgs:\n    feature-gates: UnknownVersionInteroperabilityProxy=yes please\n"),
			wantErr: `apiServer.extraArgs: --feature-gates "UnknownVersionInteroperabilityProxy=yes please": "yes please" is not true or false`},
		{name: "another kind", body: configMapJSON(t, "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n"), wantErr: `kind "InitConfiguration", want ClusterConfiguration`},
		{name: "no ClusterConfiguration key", body: []byte(`{"kind":"ConfigMap","data":{"other":"x"}}`), wantErr: "no data.ClusterConfiguration"},
		{name: "data of the wrong type", body: []byte(`{"kind":"ConfigMap","data":{"ClusterConfiguration":3}}`), wantErr: "not a ConfigMap"},
		{name: "not a ConfigMap", body: []byte(`{"kind":"Secret"}`), wantErr: "kind Secret, not ConfigMap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKubeadmConfigMap(tc.body)
			if !wantError(t, err, tc.wantErr) {
				return
			}
			if got.APIVersion != tc.wantVersion || got.KubernetesVersion != tc.wantK8s || !reflect.DeepEqual(got.Stated.Flags, tc.wantFlags) {
				t.Errorf("got %s %s %v, want %s %s %v", got.APIVersion, got.KubernetesVersion, got.Stated.Flags, tc.wantVersion, tc.wantK8s, tc.wantFlags)
			}
			if !strings.Contains(got.Stated.Source, KubeadmConfigObject) || !strings.Contains(got.Stated.Source, tc.wantVersion) {
				t.Errorf("source %q names neither the ConfigMap nor its version", got.Stated.Source)
			}
		})
	}
}

func TestParseManifest(t *testing.T) {
	kubeadm := readTestdata(t, "kube-apiserver.yaml")
	for _, tc := range []struct {
		name      string
		doc       string
		wantFlags []snapshot.Flag
		wantErr   string
	}{
		{name: "kubeadm's manifest", doc: kubeadm, wantFlags: []snapshot.Flag{{Name: "advertise-address", Value: "192.168.2.2"},
			{Name: "runtime-config", Value: "resource.k8s.io/v1beta2=true"}, {Name: "secure-port", Value: "6443"}}},
		{name: "flags as separate words, a repeated flag's last value", doc: "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: apiserver\n    command: [/usr/local/bin/kube-apiserver, --peer-ca-file, /a, --v, '2', --peer-ca-file=/b, --feature-gates, A=true, --feature-gates=UnknownVersionInteroperabilityProxy=false]\n",
			wantFlags: []snapshot.Flag{{Name: "feature-gates", Value: "A=true,UnknownVersionInteroperabilityProxy=false"}, {Name: "peer-ca-file", Value: "/b"}}},
		{name: "flags in args", doc: "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: kube-apiserver\n    args: [--peer-ca-file=/ca.crt]\n",
			wantFlags: []snapshot.Flag{{Name: "peer-ca-file", Value: "/ca.crt"}}},
		{name: "not YAML", doc: "spec: [", wantErr: "not a YAML Pod"},
		{name: "a Deployment", doc: "apiVersion: apps/v1\nkind: Deployment\n", wantErr: `apiVersion "apps/v1" kind "Deployment": want a v1 Pod`},
		{name: "no kube-apiserver container", doc: strings.ReplaceAll(strings.ReplaceAll(kubeadm, "name: kube-apiserver\n", "name: etcd\n"), "- kube-apiserver\n", "- etcd\n"), wantErr: "no kube-apiserver container (containers: etcd)"},
		{name: "containers of the wrong type", doc: "apiVersion: v1\nkind: Pod\nspec:\n  containers: {a: b}\n", wantErr: "not a YAML Pod"},
		{name: "a malformed runtime-config", doc: "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: kube-apiserver\n    command: [kube-apiserver, --runtime-config=batch/v1=maybe]\n", wantErr: `container kube-apiserver: runtime-config "batch/v1=maybe"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseManifest("/etc/kubernetes/manifests/kube-apiserver.yaml", []byte(tc.doc))
			if !wantError(t, err, tc.wantErr) {
				return
			}
			if !reflect.DeepEqual(got.Flags, tc.wantFlags) || got.Source != "manifest /etc/kubernetes/manifests/kube-apiserver.yaml" {
				t.Errorf("got %q %v, want %v", got.Source, got.Flags, tc.wantFlags)
			}
		})
	}
}

func TestParseKubeadmControlPlane(t *testing.T) {
	v1beta1, v1beta2 := readTestdata(t, "kubeadmcontrolplane-v1beta1.yaml"), readTestdata(t, "kubeadmcontrolplane-v1beta2.yaml")
	for _, tc := range []struct {
		name, doc, wantVersion, wantK8s string
		wantFlags                       []snapshot.Flag
		wantErr                         string
	}{
		{name: "v1beta1 extraArgs map", doc: v1beta1, wantVersion: KCPV1Beta1, wantK8s: "v1.35.4",
			wantFlags: []snapshot.Flag{{Name: "feature-gates", Value: "UnknownVersionInteroperabilityProxy=true"}, {Name: "peer-ca-file", Value: "/etc/kubernetes/pki/ca.crt"}}},
		{name: "v1beta2 extraArgs list, a value left out", doc: v1beta2, wantVersion: KCPV1Beta2, wantK8s: "v1.36.3",
			wantFlags: []snapshot.Flag{{Name: "runtime-config", Value: "certificates.k8s.io/v1beta1=true"}}},
		{name: "no clusterConfiguration", doc: "apiVersion: controlplane.cluster.x-k8s.io/v1beta2\nkind: KubeadmControlPlane\nmetadata: {name: cp, namespace: ns}\nspec: {version: v1.36.3}\n", wantVersion: KCPV1Beta2, wantK8s: "v1.36.3"},
		{name: "v1beta2 shape under v1beta1", doc: strings.Replace(v1beta2, KCPV1Beta2, KCPV1Beta1, 1),
			wantErr: "controlplane.cluster.x-k8s.io/v1beta1: spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs is not a map of flag name to value"},
		{name: "v1beta1 shape under v1beta2", doc: strings.Replace(v1beta1, KCPV1Beta1, KCPV1Beta2, 1),
			wantErr: "controlplane.cluster.x-k8s.io/v1beta2: spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs is not a list of {name, value}"},
		{name: "an older apiVersion", doc: strings.Replace(v1beta1, KCPV1Beta1, "controlplane.cluster.x-k8s.io/v1alpha4", 1), wantErr: `apiVersion "controlplane.cluster.x-k8s.io/v1alpha4": mvpctl reads KubeadmControlPlane`},
		{name: "a kubeadm ClusterConfiguration", doc: readTestdata(t, "clusterconfiguration-v1beta4.yaml"), wantErr: `kind "ClusterConfiguration", want KubeadmControlPlane`},
		{name: "spec of the wrong type", doc: "apiVersion: controlplane.cluster.x-k8s.io/v1beta2\nkind: KubeadmControlPlane\nspec: [1]\n", wantErr: "controlplane.cluster.x-k8s.io/v1beta2: json: cannot unmarshal array"},
		{name: "not YAML", doc: "spec: [", wantErr: "not YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKubeadmControlPlane([]byte(tc.doc))
			if !wantError(t, err, tc.wantErr) {
				return
			}
			if got.APIVersion != tc.wantVersion || got.KubernetesVersion != tc.wantK8s || !reflect.DeepEqual(got.Stated.Flags, tc.wantFlags) {
				t.Errorf("got %s %s %v, want %s %s %v", got.APIVersion, got.KubernetesVersion, got.Stated.Flags, tc.wantVersion, tc.wantK8s, tc.wantFlags)
			}
			if !strings.HasPrefix(got.Stated.Source, "KubeadmControlPlane ") || !strings.Contains(got.Stated.Source, tc.wantVersion) {
				t.Errorf("source %q", got.Stated.Source)
			}
		})
	}
}

// TestErrorsQuoteNoValue: a map key JSON cannot hold makes the YAML converter quote the value
// under it, which may be a secret; no parser's error carries it.
func TestErrorsQuoteNoValue(t *testing.T) {
	const secret = "abcdef.0123456789abcdef"
	for _, doc := range []string{
		"apiVersion: v1\nkind: Pod\nspec:\n  ~:\n    token: " + secret + "\n",
		"apiVersion: v1\nkind: Pod\nnull: " + secret + "\n",
		"apiVersion: v1\nkind: Pod\n? [" + secret + "]\n: x\n",
	} {
		_, errManifest := ParseManifest("f", []byte(doc))
		_, errKCP := ParseKubeadmControlPlane([]byte(doc))
		_, errCM := ParseKubeadmConfigMap(configMapJSON(t, doc))
		for _, err := range []error{errManifest, errKCP, errCM} {
			if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "map key") {
				t.Errorf("%q: error %v, want one naming the map key without the value", doc, err)
			}
		}
	}
}

// A manifest states the container environment the rules read (the one-release escape of
// removed APIs), and nothing else of it; a value from elsewhere is marked, not guessed.
func TestParseManifestEnv(t *testing.T) {
	doc := `apiVersion: v1
kind: Pod
spec:
  containers:
  - name: kube-apiserver
    command: [kube-apiserver, --runtime-config=resource.k8s.io/v1beta1=true]
    env:
    - {name: HTTPS_PROXY, value: "http://proxy:3128"}
    - {name: KUBE_APISERVER_SERVE_REMOVED_APIS_FOR_ONE_RELEASE, value: "true"}
`
	got, err := ParseManifest("m.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if want := []snapshot.EnvVar{{Name: mvp.ServeRemovedAPIsEnv, Value: "true"}}; !reflect.DeepEqual(got.Env, want) {
		t.Errorf("env %+v, want %+v", got.Env, want)
	}
	from := strings.Replace(doc, `value: "true"}`, `valueFrom: {configMapKeyRef: {name: x, key: y}}}`, 1)
	got, err = ParseManifest("m.yaml", []byte(from))
	if err != nil {
		t.Fatal(err)
	}
	if want := []snapshot.EnvVar{{Name: mvp.ServeRemovedAPIsEnv, ValueFrom: true}}; !reflect.DeepEqual(got.Env, want) {
		t.Errorf("valueFrom: env %+v, want %+v", got.Env, want)
	}
}
