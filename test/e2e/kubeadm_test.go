package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// kubeadmRuntimeConfig is the apiServer.extraArgs entry of the kubeadm-shaped plane: a
// group/version the v1.36 binary has no resources for (kube-apiserver skips it), but v1.37
// serves. What a v1.36 server serves cannot reveal it; only the installer's configuration
// says the upgraded server will serve certificates.k8s.io/v1beta1.
const kubeadmRuntimeConfig = "certificates.k8s.io/v1beta1=true"

// kubeadmClusterConfiguration is data.ClusterConfiguration as kubeadm 1.36 uploads it
// (configutil.MarshalKubeadmConfigObject: kubeadm.k8s.io/v1beta4, keys sorted; its defaults).
const kubeadmClusterConfiguration = `apiServer:
  extraArgs:
  - name: runtime-config
    value: ` + kubeadmRuntimeConfig + `
apiVersion: kubeadm.k8s.io/v1beta4
caCertificateValidityPeriod: 87600h0m0s
certificateValidityPeriod: 8760h0m0s
certificatesDir: /etc/kubernetes/pki
clusterName: kubernetes
controllerManager: {}
dns: {}
encryptionAlgorithm: RSA-2048
etcd:
  local:
    dataDir: /var/lib/etcd
imageRepository: registry.k8s.io
kind: ClusterConfiguration
kubernetesVersion: v1.36.3
networking:
  dnsDomain: cluster.local
  serviceSubnet: 10.96.0.0/16
proxy: {}
scheduler: {}
`

// kubeadmControlPlaneV1Beta2 is a Cluster API KubeadmControlPlane (controlplane.cluster.x-k8s.io
// v1beta2, Cluster API 1.11+) for the same plane, as `kubectl get kcp -o yaml` prints it.
const kubeadmControlPlaneV1Beta2 = `apiVersion: controlplane.cluster.x-k8s.io/v1beta2
kind: KubeadmControlPlane
metadata:
  name: kubeadm-shaped-control-plane
  namespace: default
spec:
  kubeadmConfigSpec:
    clusterConfiguration:
      apiServer:
        certSANs:
        - localhost
        - 127.0.0.1
        extraArgs:
        - name: runtime-config
          value: ` + kubeadmRuntimeConfig + `
    initConfiguration:
      nodeRegistration:
        imagePullPolicy: IfNotPresent
    joinConfiguration:
      nodeRegistration:
        imagePullPolicy: IfNotPresent
  machineTemplate:
    spec:
      infrastructureRef:
        apiGroup: infrastructure.cluster.x-k8s.io
        kind: DockerMachineTemplate
        name: kubeadm-shaped-control-plane
  replicas: 3
  version: v1.36.3
`

// kubeadmManifest is the static pod manifest kubeadm writes for s
// (/etc/kubernetes/manifests/kube-apiserver.yaml: staticpod.ComponentPod with the
// kube-apiserver container, marshalled as a v1 Pod), with the command line s runs.
func kubeadmManifest(s *harness.Server) ([]byte, error) {
	port := strings.TrimPrefix(s.URL[strings.LastIndex(s.URL, ":"):], ":")
	probe := func(path string, failures int32) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: "127.0.0.1", Path: path, Port: intstr.FromString("probe-port"), Scheme: corev1.URISchemeHTTPS}},
			InitialDelaySeconds: 10, TimeoutSeconds: 15, PeriodSeconds: 10, FailureThreshold: failures}
	}
	hostPath := corev1.HostPathDirectoryOrCreate
	pod := corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "kube-apiserver", Namespace: "kube-system",
			Labels:      map[string]string{"component": "kube-apiserver", "tier": "control-plane"},
			Annotations: map[string]string{"kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint": "127.0.0.1:" + port}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "kube-apiserver", Image: "registry.k8s.io/kube-apiserver:" + s.Version, ImagePullPolicy: corev1.PullIfNotPresent,
				Command:        append([]string{"kube-apiserver"}, s.Args()...),
				Ports:          []corev1.ContainerPort{{Name: "probe-port", ContainerPort: 6443, Protocol: corev1.ProtocolTCP}},
				LivenessProbe:  probe("/livez", 8),
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: "127.0.0.1", Path: "/readyz", Port: intstr.FromString("probe-port"), Scheme: corev1.URISchemeHTTPS}}, TimeoutSeconds: 15, PeriodSeconds: 1, FailureThreshold: 3},
				StartupProbe:   probe("/livez", 24),
				Resources:      corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}},
				VolumeMounts:   []corev1.VolumeMount{{Name: "k8s-certs", MountPath: "/etc/kubernetes/pki", ReadOnly: true}},
			}},
			HostNetwork: true, PriorityClassName: "system-node-critical", Priority: ptrTo(int32(2000001000)),
			SecurityContext: &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Volumes:         []corev1.Volume{{Name: "k8s-certs", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/etc/kubernetes/pki", Type: &hostPath}}}},
		},
	}
	return yaml.Marshal(pod)
}

func ptrTo[T any](v T) *T { return &v }

// TestKubeadmShapedUpgrade: a control plane set up as kubeadm sets it up — no --feature-gates,
// no --peer-* flag (kubeadm sets no --peer-ca-file), its apiServer.extraArgs recorded in
// kube-system/kubeadm-config, a static pod manifest per node — is snapshotted with the
// ConfigMap, then with each node's manifest: every server's flags are STATED, none assumed.
// preflight --to 1.37 says each upgraded server will start without --peer-ca-file (MVP061).
// The upgrade of kas-a to 1.37 is rehearsed from the stated flags and then performed: every
// simulated cell is what the servers do, including certificates.k8s.io/v1beta1, which only
// the stated --runtime-config predicts (the same rehearsal without it misses it).
func TestKubeadmShapedUpgrade(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the simulated-then-real upgrade")
	}
	spec := func(name string) harness.ServerSpec {
		return harness.ServerSpec{Name: name, Version: harness.V1_36, DefaultProxyConfig: true, ExtraFlags: []string{"--runtime-config=" + kubeadmRuntimeConfig}}
	}
	cp := harness.Start(t, spec("kas-a"), spec("kas-b"), spec("kas-c"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	cm, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "kubeadm-config", "namespace": "kube-system"},
		"data":     map[string]string{"ClusterConfiguration": kubeadmClusterConfiguration}})
	r, err := cp.Server("kas-a").Do(ctx, http.MethodPost, "/api/v1/namespaces/kube-system/configmaps", http.Header{"Content-Type": {"application/json"}}, strings.NewReader(string(cm)))
	if err != nil || r.StatusCode != http.StatusCreated {
		t.Fatalf("creating kubeadm-config: %v %v", err, r)
	}
	var manifestArgs []string
	manifests := map[string]string{}
	for _, s := range cp.Servers() {
		doc, err := kubeadmManifest(s)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), s.Name, "kube-apiserver.yaml")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, doc, 0o600); err != nil {
			t.Fatal(err)
		}
		manifests[s.Name] = path
		manifestArgs = append(manifestArgs, "--static-pod-manifest", s.Name+"="+path)
	}

	// With the ConfigMap: every server states the ClusterConfiguration's extraArgs.
	dir := t.TempDir()
	fromCM, _ := mvpctlSnapshot(t, dir+"/configmap.json", []int{0}, "--kubeconfig", cp.Kubeconfig)
	if in := fromCM.Cluster.Installer; in == nil || in.KubeadmConfig != snapshot.KubeadmConfigRead || in.KubernetesVersion != "v1.36.3" || in.Detail != "kubeadm.k8s.io/v1beta4" {
		t.Fatalf("installer %+v", fromCM.Cluster.Installer)
	}
	wantCM := []snapshot.Flag{{Name: "runtime-config", Value: kubeadmRuntimeConfig}}
	for _, s := range fromCM.Servers {
		if s.Stated == nil || !strings.HasPrefix(s.Stated.Source, "ConfigMap kube-system/kubeadm-config (kubeadm.k8s.io/v1beta4") || !slices.Equal(s.Stated.Flags, wantCM) {
			t.Errorf("%s: stated %+v, want %v from the ConfigMap", s.Name, s.Stated, wantCM)
		}
	}

	// With Cluster API's KubeadmControlPlane (v1beta2, as the management cluster serves it):
	// what every machine it creates starts with, over the ConfigMap.
	kcp := dir + "/kcp.yaml"
	if err := os.WriteFile(kcp, []byte(kubeadmControlPlaneV1Beta2), 0o600); err != nil {
		t.Fatal(err)
	}
	fromKCP, _ := mvpctlSnapshot(t, dir+"/kcp.json", []int{0}, "--kubeconfig", cp.Kubeconfig, "--kubeadm-control-plane", kcp)
	if in := fromKCP.Cluster.Installer; in == nil || in.KubeadmControlPlane != kcp || in.KubeadmConfig != snapshot.KubeadmConfigRead {
		t.Errorf("installer %+v", fromKCP.Cluster.Installer)
	}
	for _, s := range fromKCP.Servers {
		if s.Stated == nil || !strings.HasPrefix(s.Stated.Source, "KubeadmControlPlane default/kubeadm-shaped-control-plane (controlplane.cluster.x-k8s.io/v1beta2") || !slices.Equal(s.Stated.Flags, wantCM) {
			t.Errorf("%s: stated %+v, want %v from the KubeadmControlPlane", s.Name, s.Stated, wantCM)
		}
	}

	// With each node's manifest: its whole command line, per-node flags included.
	fromManifests, res := mvpctlSnapshot(t, dir+"/manifests.json", []int{0}, append([]string{"--kubeconfig", cp.Kubeconfig}, manifestArgs...)...)
	t.Logf("snapshot with the manifests: %s", res.Stderr)
	for _, s := range fromManifests.Servers {
		port := cp.Server(s.Name).URL[strings.LastIndex(cp.Server(s.Name).URL, ":")+1:]
		want := []snapshot.Flag{{Name: "advertise-address", Value: "127.0.0.1"}, {Name: "runtime-config", Value: kubeadmRuntimeConfig}, {Name: "secure-port", Value: port}}
		if s.Stated == nil || s.Stated.Source != "manifest "+manifests[s.Name] || !slices.Equal(s.Stated.Flags, want) {
			t.Errorf("%s: stated %+v, want %v from %s", s.Name, s.Stated, want, manifests[s.Name])
		}
	}

	// preflight: the stated flags start every upgraded server with the gate on (1.37's
	// default) and no --peer-ca-file.
	pf := runMvpctl(t, "preflight", "--snapshot", dir+"/manifests.json", "--to", "1.37", "-o", "json")
	var rep struct {
		Stated, Assumptions []string
		Findings            []struct{ Check, Subject, Message string }
	}
	if err := json.Unmarshal(pf.Stdout, &rep); err != nil {
		t.Fatalf("%s: %v", pf, err)
	}
	var noCA []string
	for _, f := range rep.Findings {
		switch f.Check {
		case "MVP061":
			noCA = append(noCA, f.Subject)
		case "MVP060":
			t.Errorf("the stated flags disagree with the servers: %s", f.Message)
		}
	}
	slices.Sort(noCA)
	if !slices.Equal(noCA, []string{"kas-a", "kas-b", "kas-c"}) || len(rep.Stated) == 0 || len(rep.Assumptions) != 0 {
		t.Errorf("preflight: MVP061 for %v, want every server; stated %q; assumptions %q", noCA, rep.Stated, rep.Assumptions)
	}

	// The rehearsal from the stated flags, then the real upgrade, cell for cell.
	sim := simulatedThenReal(t, ctx, cp, "kas-a", "", manifestArgs...)
	t.Logf("STATED: %q; notes: %q", sim.Stated, sim.Steps[1].Notes)
	if len(sim.StatedConfigs) != 3 || len(sim.Assumptions) != 0 {
		t.Errorf("stated configs %+v, assumptions %q", sim.StatedConfigs, sim.Assumptions)
	}
	for _, c := range sim.StatedConfigs {
		if c.RuntimeConfig != kubeadmRuntimeConfig || len(c.Disagreements) > 0 {
			t.Errorf("%s: stated %q, disagreements %q", c.Server, c.RuntimeConfig, c.Disagreements)
		}
	}
	certRows := func(sim simulationDoc) (rows []string) {
		for _, row := range sim.Steps[1].Routes.Rows {
			if strings.HasPrefix(row.Name, "certificates.k8s.io/v1beta1/") {
				rows = append(rows, row.Name)
			}
		}
		return rows
	}
	stated := certRows(sim)
	if len(stated) == 0 {
		t.Errorf("the stated rehearsal has no certificates.k8s.io/v1beta1 row")
	}

	// The same rehearsal without the installer's configuration infers kas-a's
	// --runtime-config from what it serves, and misses what the real upgrade serves.
	var bare snapshot.Snapshot
	bare = fromManifests.Snapshot
	bare.Cluster.Installer = nil
	for i := range bare.Servers {
		bare.Servers[i].Stated = nil
	}
	data, err := bare.Marshal(true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/bare.json", data, 0o600); err != nil {
		t.Fatal(err)
	}
	rb := runMvpctl(t, "simulate", "run", "--snapshot", dir+"/bare.json", "--step", "upgrade:kas-a="+harness.V1_37, "-o", "json")
	var inferred simulationDoc
	if err := json.Unmarshal(rb.Stdout, &inferred); err != nil || len(inferred.Steps) != 2 {
		t.Fatalf("%s: %v", rb, err)
	}
	t.Logf("certificates.k8s.io/v1beta1 rows: stated rehearsal %v, inferred rehearsal %v", stated, certRows(inferred))
	if len(certRows(inferred)) != 0 {
		t.Errorf("the inferred rehearsal predicts certificates.k8s.io/v1beta1 too: the stated flags made no difference here")
	}
}

// TestKubeadmUpgradeTurnsTheGateOn: kubeadm states no --feature-gates, so a kubeadm 1.35
// control plane runs with the gate off (1.35's default) and one upgraded to 1.36 comes up with
// it on (1.36's default) and still no proxy filter. Read from kube-system/kubeadm-config
// alone, preflight says so before the upgrade (MVP061), the rehearsal matches the real upgrade
// cell for cell, and a snapshot after it observes the gate the statement predicted.
func TestKubeadmUpgradeTurnsTheGateOn(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the simulated-then-real upgrade")
	}
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_35, DefaultProxyConfig: true},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_35, DefaultProxyConfig: true},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	doc := strings.NewReplacer("kubernetesVersion: v1.36.3", "kubernetesVersion: v1.35.4",
		"apiServer:\n  extraArgs:\n  - name: runtime-config\n    value: "+kubeadmRuntimeConfig+"\n", "apiServer: {}\n").Replace(kubeadmClusterConfiguration)
	cm, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "kubeadm-config", "namespace": "kube-system"}, "data": map[string]string{"ClusterConfiguration": doc}})
	if r, err := cp.Server("kas-a").Do(ctx, http.MethodPost, "/api/v1/namespaces/kube-system/configmaps", http.Header{"Content-Type": {"application/json"}}, strings.NewReader(string(cm))); err != nil || r.StatusCode != http.StatusCreated {
		t.Fatalf("creating kubeadm-config: %v %v", err, r)
	}
	// The gate is off: the identity leases publish no address, so each server is named.
	endpoints := []string{"--kubeconfig", cp.Kubeconfig, "--endpoint", cp.Server("kas-a").URL, "--endpoint", cp.Server("kas-b").URL}
	dir := t.TempDir()
	before, _ := mvpctlSnapshot(t, dir+"/before.json", []int{0}, endpoints...)
	serverOf := func(name string) *harness.Server { // a snapshot's server name to the harness's
		for _, s := range cp.Servers() {
			if snapName(before, s) == name {
				return s
			}
		}
		return nil
	}
	for _, s := range before.Servers {
		if s.Stated == nil || len(s.Stated.Flags) != 0 || s.PeerProxy.GateEnabled == nil || *s.PeerProxy.GateEnabled {
			t.Errorf("%s: stated %+v, gate %v: want nothing stated, gate observed off", s.Name, s.Stated, s.PeerProxy.GateEnabled)
		}
	}
	nameA, nameB := snapName(before, cp.Server("kas-a")), snapName(before, cp.Server("kas-b"))
	pf := runMvpctl(t, "preflight", "--snapshot", dir+"/before.json", "--to", "1.36", "-o", "json")
	var rep struct {
		Findings []struct{ Check, Subject, Message string }
	}
	if err := json.Unmarshal(pf.Stdout, &rep); err != nil {
		t.Fatalf("%s: %v", pf, err)
	}
	predicted := map[string]string{}
	for _, f := range rep.Findings {
		if f.Check == "MVP061" {
			predicted[f.Subject] = f.Message
		}
		if f.Check == "MVP060" {
			t.Errorf("the stated flags disagree with the servers: %s", f.Message)
		}
	}
	for _, name := range []string{nameA, nameB} {
		if !strings.Contains(predicted[name], "gate UnknownVersionInteroperabilityProxy on (no --feature-gates entry: the 1.36 default), no --peer-ca-file, so no proxy filter") {
			t.Errorf("MVP061 for %s: %q", name, predicted[name])
		}
	}
	t.Logf("predicted (MVP061): %s", predicted[nameA])

	r := runMvpctl(t, "simulate", "run", "--snapshot", dir+"/before.json", "--step", "upgrade:"+nameA+"="+harness.V1_36, "-o", "json")
	var sim simulationDoc
	if err := json.Unmarshal(r.Stdout, &sim); err != nil || len(sim.Steps) != 2 || len(sim.Steps[1].Routes.Rows) == 0 {
		t.Fatalf("%s (%v)", r, err)
	}
	if err := cp.Upgrade(ctx, "kas-a", harness.V1_36); err != nil {
		t.Fatal(err)
	}
	checkSimulatedCells(t, ctx, sim, 1, serverOf)
	after, _ := mvpctlSnapshot(t, dir+"/after.json", []int{0}, endpoints...)
	var a *snapshot.Server
	for i := range after.Servers {
		if strings.TrimSuffix(after.Servers[i].Endpoint, "/") == cp.Server("kas-a").URL {
			a = &after.Servers[i]
		}
	}
	if a == nil || a.PeerProxy.GateEnabled == nil || !*a.PeerProxy.GateEnabled || a.PeerProxy.FilterInstalled == nil || *a.PeerProxy.FilterInstalled {
		t.Fatalf("kas-a after the upgrade: %+v, want the gate on and no filter as stated", a)
	}
	t.Logf("observed after the upgrade: kas-a %s gate %t filter %t (%s)", a.Version, *a.PeerProxy.GateEnabled, *a.PeerProxy.FilterInstalled, strings.Join(a.PeerProxy.Evidence, "; "))
}
