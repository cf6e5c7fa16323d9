// Package kubeflags binds kubectl's connection flags (--kubeconfig, --context, --server/-s,
// --token, --as, --tls-server-name, --request-timeout, --namespace/-n, ...) with client-go's
// clientcmd. cli-runtime's ConfigFlags binds the same flags but brings the resource builder,
// kustomize and the client-go scheme into the binary (some 170 packages) for them.
package kubeflags

import (
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Flags are kubectl's connection flags.
type Flags struct {
	// KubeConfig is --kubeconfig: a file used instead of $KUBECONFIG and ~/.kube/config.
	KubeConfig string
	// Overrides hold every other flag, as clientcmd applies them over the kubeconfig.
	Overrides clientcmd.ConfigOverrides
}

// New returns unset flags.
func New() *Flags { return &Flags{} }

// connectionAnnotation marks the flags AddFlags adds that choose the cluster and how to reach
// it (every one but --namespace): SetConnectionFlags finds them by it.
const connectionAnnotation = "mvpctl.io/connection"

// AddFlags adds the flags to fs, with kubectl's names and shorthands.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	before := map[string]bool{}
	fs.VisitAll(func(fl *pflag.Flag) { before[fl.Name] = true })
	fs.StringVar(&f.KubeConfig, clientcmd.RecommendedConfigPathFlag, "", "Path to the kubeconfig file to use for CLI requests.")
	names := clientcmd.RecommendedConfigOverrideFlags("")
	names.ClusterOverrideFlags.APIServer.ShortName = "s"
	names.ContextOverrideFlags.Namespace.ShortName = "n"
	clientcmd.BindOverrideFlags(&f.Overrides, fs, names)
	fs.VisitAll(func(fl *pflag.Flag) {
		if !before[fl.Name] && fl.Name != names.ContextOverrideFlags.Namespace.LongName {
			_ = fs.SetAnnotation(fl.Name, connectionAnnotation, []string{"true"})
		}
	})
}

// SetConnectionFlags lists the connection flags (--server, --context, --token, ...; not
// --namespace) set on the command line of fs, the flags of a command after parsing.
func SetConnectionFlags(fs *pflag.FlagSet) []string {
	var set []string
	fs.Visit(func(fl *pflag.Flag) {
		if _, ok := fl.Annotations[connectionAnnotation]; ok {
			set = append(set, "--"+fl.Name)
		}
	})
	return set
}

// ToRawKubeConfigLoader is the kubeconfig as the flags select it: the loading rules
// (--kubeconfig, else $KUBECONFIG, else ~/.kube/config; in a pod the in-cluster config) with
// the flags applied over it. Each file is bounded (CheckFiles).
func (f *Flags) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.KubeConfig
	return boundedConfig{inner: clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &f.Overrides), rules: rules}
}

// ToRESTConfig is the client config of the current context, the flags applied.
func (f *Flags) ToRESTConfig() (*rest.Config, error) {
	return f.ToRawKubeConfigLoader().ClientConfig()
}

// ContextOverride is --context ("" when not given).
func (f *Flags) ContextOverride() string { return f.Overrides.CurrentContext }

// ServerOverride is --server ("" when not given).
func (f *Flags) ServerOverride() string { return f.Overrides.ClusterInfo.Server }
