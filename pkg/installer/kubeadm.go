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

// KubeadmConfig is what a kubeadm ClusterConfiguration states: kubeadm-config's, or a Cluster
// API KubeadmControlPlane's.
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

// clusterConfiguration holds the fields read of a kubeadm ClusterConfiguration, with kubeadm's
// JSON names (the top-level featureGates are kubeadm's own gates, never passed to
// kube-apiserver). extraArgs is decoded by its version's shape (argsShape).
type clusterConfiguration struct {
	KubernetesVersion string `json:"kubernetesVersion"`
	APIServer         struct {
		ExtraArgs json.RawMessage `json:"extraArgs"`
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
	cfg, err := parseClusterConfiguration([]byte(doc))
	if err != nil {
		return nil, fmt.Errorf("data.%s: %w", clusterConfigurationKey, err)
	}
	return cfg, nil
}

// parseClusterConfiguration reads a kubeadm ClusterConfiguration document (YAML).
func parseClusterConfiguration(doc []byte) (*KubeadmConfig, error) {
	var c clusterConfiguration
	version, shape, err := decodeKind(doc, "ClusterConfiguration", KubeadmV1Beta3, KubeadmV1Beta4, &c)
	if err != nil {
		return nil, err
	}
	stated, err := statedExtraArgs(c.APIServer.ExtraArgs, shape, version, "apiServer.extraArgs")
	if err != nil {
		return nil, err
	}
	stated.Source = fmt.Sprintf("%s (%s ClusterConfiguration, apiServer.extraArgs)", KubeadmConfigObject, version)
	return &KubeadmConfig{APIVersion: version, KubernetesVersion: c.KubernetesVersion, Stated: stated}, nil
}

// decodeKind decodes doc (YAML or JSON) into out when it is a kind of apiVersion mapVersion
// (extraArgs a map) or listVersion (a list), and returns its apiVersion and extraArgs shape.
func decodeKind(doc []byte, kind, mapVersion, listVersion string, out any) (string, argsShape, error) {
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return "", "", fmt.Errorf("not YAML: %s", cleanErr(err))
	}
	var tm typeMeta
	if err := json.Unmarshal(j, &tm); err != nil {
		return "", "", fmt.Errorf("not a %s: %s", kind, cleanErr(err))
	}
	if tm.Kind != kind {
		return "", "", fmt.Errorf("kind %q, want %s", tm.Kind, kind)
	}
	shape, known := map[string]argsShape{mapVersion: argsMap, listVersion: argsList}[tm.APIVersion]
	if !known {
		return "", "", fmt.Errorf("apiVersion %q: mvpctl reads %s %s and %s", tm.APIVersion, kind, mapVersion, listVersion)
	}
	if err := json.Unmarshal(j, out); err != nil {
		return "", "", fmt.Errorf("%s: %s", tm.APIVersion, cleanErr(err))
	}
	return tm.APIVersion, shape, nil
}

// argsShape is how a configuration version writes extraArgs.
type argsShape string

const (
	// argsMap: flag name to value (kubeadm.k8s.io/v1beta3; Cluster API v1beta1).
	argsMap argsShape = "a map of flag name to value"
	// argsList: a list of {name, value}, in command-line order, in which kubeadm allows a name
	// to repeat (kubeadm.k8s.io/v1beta4; Cluster API v1beta2, where value may be left out).
	argsList argsShape = "a list of {name, value}"
)

// statedExtraArgs reads an extraArgs field (raw JSON, absent allowed) of the given shape into
// the flags it puts on the kube-apiserver command line, after kubeadm's own
// (ArgumentsToCommand). version and field name the document and field in errors.
func statedExtraArgs(raw json.RawMessage, shape argsShape, version, field string) (snapshot.StatedFlags, error) {
	wrongType := func() error {
		return fmt.Errorf("%s: %s is not %s (as %s writes it)", version, field, shape, version)
	}
	var args []string
	if len(raw) > 0 && string(raw) != "null" {
		switch shape {
		case argsMap:
			var m map[string]string
			if err := json.Unmarshal(raw, &m); err != nil {
				return snapshot.StatedFlags{}, wrongType()
			}
			// One value per flag; the order among them does not matter (none read here repeats).
			for name, value := range m {
				args = append(args, "--"+name+"="+value)
			}
		case argsList:
			var l []struct {
				Name  string  `json:"name"`
				Value *string `json:"value"`
			}
			if err := json.Unmarshal(raw, &l); err != nil {
				return snapshot.StatedFlags{}, wrongType()
			}
			for i, a := range l {
				if a.Name == "" {
					return snapshot.StatedFlags{}, fmt.Errorf("%s: %s[%d] has no name", version, field, i)
				}
				value := ""
				if a.Value != nil {
					value = *a.Value
				}
				args = append(args, "--"+a.Name+"="+value)
			}
		}
	}
	flags, err := mvp.CommandLineFlags(args)
	if err != nil {
		return snapshot.StatedFlags{}, fmt.Errorf("%s: %w", field, err)
	}
	return snapshot.StatedFlags{Flags: flags}, nil
}

// cleanErr is a decoding error on one line, without the decoders' layered prefixes. A map key
// JSON cannot hold (null, a list, a map) makes sigs.k8s.io/yaml quote the key and the whole
// value under it, which may hold a secret (a bootstrap token, a file's content): the message
// stops before them.
func cleanErr(err error) string {
	s := err.Error()
	for _, p := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	for _, quoting := range []string{"unsupported map key", "invalid map key"} {
		if i := strings.Index(s, quoting); i >= 0 {
			s = s[:i] + "a map key that is null, a list or a map (not quoted)"
		}
	}
	return strings.Join(strings.Fields(s), " ")
}
