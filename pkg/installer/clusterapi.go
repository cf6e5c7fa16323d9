package installer

import "fmt"

// Cluster API's KubeadmControlPlane: the ClusterConfiguration every control-plane machine it
// creates is initialised or joined with (spec.kubeadmConfigSpec.clusterConfiguration). A
// rollout, an upgrade among them, replaces each machine by one started with it, so it states
// the flags of the upgraded servers. v1beta1 writes extraArgs as a map, v1beta2 (Cluster API
// 1.11+) as a list of {name, value} (sigs.k8s.io/cluster-api api/bootstrap/kubeadm).
const (
	capiControlPlaneGroup = "controlplane.cluster.x-k8s.io"
	KCPV1Beta1            = capiControlPlaneGroup + "/v1beta1"
	KCPV1Beta2            = capiControlPlaneGroup + "/v1beta2"
	kcpExtraArgs          = "spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs"
)

// kubeadmControlPlane holds the fields read of a KubeadmControlPlane.
type kubeadmControlPlane struct {
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec struct {
		Version           string `json:"version"`
		KubeadmConfigSpec struct {
			ClusterConfiguration clusterConfiguration `json:"clusterConfiguration"`
		} `json:"kubeadmConfigSpec"`
	} `json:"spec"`
}

// ParseKubeadmControlPlane reads a KubeadmControlPlane (YAML or JSON, as `kubectl get kcp NAME
// -o yaml` prints it from the management cluster). KubernetesVersion is its spec.version. The
// error says what is wrong, without naming the file (the caller does).
func ParseKubeadmControlPlane(doc []byte) (*KubeadmConfig, error) {
	var k kubeadmControlPlane
	version, shape, err := decodeKind(doc, "KubeadmControlPlane", KCPV1Beta1, KCPV1Beta2, &k)
	if err != nil {
		return nil, err
	}
	stated, err := statedExtraArgs(k.Spec.KubeadmConfigSpec.ClusterConfiguration.APIServer.ExtraArgs, shape, version, kcpExtraArgs)
	if err != nil {
		return nil, err
	}
	stated.Source = fmt.Sprintf("KubeadmControlPlane %s/%s (%s, %s)", k.Metadata.Namespace, k.Metadata.Name, version, kcpExtraArgs)
	return &KubeadmConfig{APIVersion: version, KubernetesVersion: k.Spec.Version, Stated: stated}, nil
}
