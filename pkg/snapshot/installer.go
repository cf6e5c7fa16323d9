package snapshot

// Installer is what mvpctl read of the control plane's installer configuration: the
// kube-system/kubeadm-config ConfigMap, the static pod manifests given with --static-pod-manifest, and a
// Cluster API KubeadmControlPlane given with --kubeadm-control-plane.
// What each states about a server's flags is on the server (Server.Stated). Nil when the
// snapshot predates the field, or was not taken from a live cluster.
type Installer struct {
	// KubeadmConfig is what became of kube-system/kubeadm-config: one of KubeadmConfigRead,
	// KubeadmConfigNotPresent, KubeadmConfigForbidden, KubeadmConfigUnreadable.
	KubeadmConfig string `json:"kubeadmConfig"`
	// Detail says why it was not read (forbidden, unreadable), or which
	// ClusterConfiguration apiVersion was read.
	Detail string `json:"detail,omitempty"`
	// KubernetesVersion is the ClusterConfiguration's kubernetesVersion, when read.
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// Manifests are the static pod manifests read, as SERVER=PATH.
	Manifests []string `json:"manifests,omitempty"`
	// KubeadmControlPlane is the Cluster API KubeadmControlPlane file read, when one was
	// given: its ClusterConfiguration states the flags of every server without a manifest.
	KubeadmControlPlane string `json:"kubeadmControlPlane,omitempty"`
}

// What became of kube-system/kubeadm-config.
const (
	KubeadmConfigRead       = "read"
	KubeadmConfigNotPresent = "not-present"
	KubeadmConfigForbidden  = "forbidden"
	KubeadmConfigUnreadable = "unreadable"
)

// StatedFlags are the kube-apiserver flags an installer states a server runs with, as far as
// they decide the peer proxy (mvp.StatedFlagNames). A source states the whole command line
// for the flags kubeadm never sets by itself (--feature-gates, --runtime-config, --peer-*): a
// flag missing from Flags is not set. --advertise-address and --secure-port, which kubeadm
// sets per node, are stated only by a manifest (or a ConfigMap's extraArgs).
type StatedFlags struct {
	// Source is where the flags were read: the ConfigMap (and its ClusterConfiguration
	// apiVersion) or the manifest's path.
	Source string `json:"source"`
	// Flags are the flags, by name without dashes, sorted by name; a flag kube-apiserver merges
	// when repeated (--feature-gates, --runtime-config) is given merged.
	Flags []Flag `json:"flags,omitempty"`
	// Env are the environment variables of the server's container that change what it serves
	// (mvp.StatedEnvNames), as a manifest states them; nil when none is set or the source
	// cannot state them (a ConfigMap). An entry whose value comes from elsewhere (valueFrom)
	// has an empty Value and ValueFrom set.
	Env []EnvVar `json:"env,omitempty"`
}

// EnvVar is one environment variable of a container.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
	// ValueFrom is true when the manifest takes the value from a Secret, ConfigMap or field.
	ValueFrom bool `json:"valueFrom,omitempty"`
}

// Flag is one command-line flag: --Name=Value.
type Flag struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Lookup returns the value of flag name, and whether it is set.
func (s *StatedFlags) Lookup(name string) (string, bool) {
	if s == nil {
		return "", false
	}
	for _, f := range s.Flags {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}
