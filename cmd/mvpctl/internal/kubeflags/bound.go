package kubeflags

import (
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// MaxKubeconfig bounds each kubeconfig file read (--kubeconfig, each $KUBECONFIG entry,
// ~/.kube/config): a context with its cluster's CA and a client certificate is under 10 KiB,
// so 8 MiB holds several hundred. client-go decodes the whole file, at about 7 times its size in
// memory (docs/faults.md).
const MaxKubeconfig = 8 << 20

// CheckFiles refuses, before client-go reads them, the kubeconfig files rules would load that
// are larger than MaxKubeconfig or are devices other than /dev/null (kubectl's way to say
// none: /dev/zero or /dev/urandom would never end). Files that do not
// exist are left to client-go, which reports or skips them as kubectl does; a pipe
// (--kubeconfig <(...)) is read as client-go reads it.
func CheckFiles(rules *clientcmd.ClientConfigLoadingRules) error {
	for _, path := range rules.GetLoadingPrecedence() {
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeDevice != 0 && !isDevNull(fi):
			return fmt.Errorf("file %q: a device, not a kubeconfig: not read", path)
		case fi.Mode().IsRegular() && fi.Size() > MaxKubeconfig:
			return fmt.Errorf("file %q: %d bytes, larger than %d MiB: not read (a kubeconfig of hundreds of contexts is a few MiB)",
				path, fi.Size(), MaxKubeconfig>>20)
		}
	}
	return nil
}

func isDevNull(fi os.FileInfo) bool {
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

// boundedConfig is a ClientConfig that checks its files (CheckFiles) before each load.
type boundedConfig struct {
	inner clientcmd.ClientConfig
	rules *clientcmd.ClientConfigLoadingRules
}

func (b boundedConfig) RawConfig() (clientcmdapi.Config, error) {
	if err := CheckFiles(b.rules); err != nil {
		return clientcmdapi.Config{}, err
	}
	return b.inner.RawConfig()
}

func (b boundedConfig) ClientConfig() (*rest.Config, error) {
	if err := CheckFiles(b.rules); err != nil {
		return nil, err
	}
	return b.inner.ClientConfig()
}

func (b boundedConfig) Namespace() (string, bool, error) {
	if err := CheckFiles(b.rules); err != nil {
		return "", false, err
	}
	return b.inner.Namespace()
}

func (b boundedConfig) ConfigAccess() clientcmd.ConfigAccess { return b.inner.ConfigAccess() }
