package installer

import (
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Where kubeadm records its configuration (kubeadm's constants KubeadmConfigConfigMap and
// ClusterConfigurationConfigMapKey).
const (
	KubeadmConfigNamespace = "kube-system"
	KubeadmConfigName      = "kubeadm-config"
	// KubeadmConfigObject names the ConfigMap in messages.
	KubeadmConfigObject     = "ConfigMap " + KubeadmConfigNamespace + "/" + KubeadmConfigName
	clusterConfigurationKey = "ClusterConfiguration"
	kubeadmGroup            = "kubeadm.k8s.io"
)

// The ClusterConfiguration versions read: v1beta3 (kubeadm 1.22–1.30 writes it) has
// extraArgs as a map of flag to value; v1beta4 (1.31+) as a list of {name, value}, in which a
// name may repeat (k8s.io/kubernetes cmd/kubeadm/app/apis/kubeadm/v1beta3 and v1beta4).
const (
	KubeadmV1Beta3 = kubeadmGroup + "/v1beta3"
	KubeadmV1Beta4 = kubeadmGroup + "/v1beta4"
)

// KubeadmConfig is what the ClusterConfiguration of kubeadm-config states.
type KubeadmConfig struct {
	// APIVersion is the ClusterConfiguration's apiVersion.
	APIVersion        string
	KubernetesVersion string
	// Stated are apiServer.extraArgs, as kubeadm puts them on every control-plane node's
	// kube-apiserver command line. kubeadm's own flags for it never include --feature-gates,
	// --runtime-config or --peer-* (cmd/kubeadm/app/phases/controlplane/manifests.go,
	// getAPIServerCommand), so for those this is the whole command line; --advertise-address
	// and --secure-port are per node (InitConfiguration / JoinConfiguration), not here.
	Stated snapshot.StatedFlags
}

// configMap is the part of a v1 ConfigMap read here.
type configMap struct {
	Kind string            `json:"kind"`
	Data map[string]string `json:"data"`
}

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// clusterConfigurationV1Beta3 and V1Beta4 hold the fields read, with kubeadm's JSON names and
// types (the top-level featureGates are kubeadm's own gates, never passed to kube-apiserver).
type clusterConfigurationV1Beta3 struct {
	KubernetesVersion string `json:"kubernetesVersion"`
	APIServer         struct {
		ExtraArgs map[string]string `json:"extraArgs"`
	} `json:"apiServer"`
}

type clusterConfigurationV1Beta4 struct {
	KubernetesVersion string `json:"kubernetesVersion"`
	APIServer         struct {
		ExtraArgs []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"extraArgs"`
	} `json:"apiServer"`
}

// ParseKubeadmConfigMap reads the kubeadm-config ConfigMap as the API serves it (JSON). The
// error says what is wrong, without naming the object (the caller does).
func ParseKubeadmConfigMap(body []byte) (*KubeadmConfig, error) {
	var cm configMap
	if err := json.Unmarshal(body, &cm); err != nil {
		return nil, fmt.Errorf("not a ConfigMap: %s", cleanErr(err))
	}
	if cm.Kind != "" && cm.Kind != "ConfigMap" {
		return nil, fmt.Errorf("kind %s, not ConfigMap", cm.Kind)
	}
	doc, ok := cm.Data[clusterConfigurationKey]
	if !ok {
		return nil, fmt.Errorf("no data.%s", clusterConfigurationKey)
	}
	cfg, err := ParseClusterConfiguration([]byte(doc))
	if err != nil {
		return nil, fmt.Errorf("data.%s: %w", clusterConfigurationKey, err)
	}
	return cfg, nil
}

// ParseClusterConfiguration reads a kubeadm ClusterConfiguration document (YAML).
func ParseClusterConfiguration(doc []byte) (*KubeadmConfig, error) {
	var tm typeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, fmt.Errorf("not YAML: %s", cleanErr(err))
	}
	if tm.Kind != "ClusterConfiguration" {
		return nil, fmt.Errorf("kind %q, want ClusterConfiguration", tm.Kind)
	}
	out := &KubeadmConfig{APIVersion: tm.APIVersion}
	var args []string
	switch tm.APIVersion {
	case KubeadmV1Beta3:
		var c clusterConfigurationV1Beta3
		if err := yaml.Unmarshal(doc, &c); err != nil {
			return nil, fmt.Errorf("%s: %s (apiServer.extraArgs is a map of flag name to value in %s)", tm.APIVersion, cleanErr(err), tm.APIVersion)
		}
		out.KubernetesVersion = c.KubernetesVersion
		// A map: one value per flag; the command line has them after kubeadm's own, in any
		// order (no flag read here is repeated).
		for name, value := range c.APIServer.ExtraArgs {
			args = append(args, "--"+name+"="+value)
		}
	case KubeadmV1Beta4:
		var c clusterConfigurationV1Beta4
		if err := yaml.Unmarshal(doc, &c); err != nil {
			return nil, fmt.Errorf("%s: %s (apiServer.extraArgs is a list of {name, value} in %s)", tm.APIVersion, cleanErr(err), tm.APIVersion)
		}
		out.KubernetesVersion = c.KubernetesVersion
		for i, a := range c.APIServer.ExtraArgs {
			if a.Name == "" {
				return nil, fmt.Errorf("%s: apiServer.extraArgs[%d] has no name", tm.APIVersion, i)
			}
			args = append(args, "--"+a.Name+"="+a.Value) // kubeadm's ArgumentsToCommand, in order
		}
	default:
		return nil, fmt.Errorf("apiVersion %q: mvpctl reads ClusterConfiguration %s and %s", tm.APIVersion, KubeadmV1Beta3, KubeadmV1Beta4)
	}
	flags, err := mvp.CommandLineFlags(args)
	if err != nil {
		return nil, fmt.Errorf("apiServer.extraArgs: %w", err)
	}
	out.Stated = snapshot.StatedFlags{Source: fmt.Sprintf("%s (%s ClusterConfiguration, apiServer.extraArgs)", KubeadmConfigObject, tm.APIVersion), Flags: flags}
	return out, nil
}

// cleanErr is a decoding error on one line, without the decoders' layered prefixes.
func cleanErr(err error) string {
	s := err.Error()
	for _, p := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	return strings.Join(strings.Fields(s), " ")
}
