package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/installer"
)

// StaticPodManifestFlag is the flag of an apiserver's static pod manifest, SERVER=FILE; its
// former name, --manifest, still works, deprecated (it sat beside preflight's --manifests, the
// objects clients apply).
const (
	StaticPodManifestFlag    = "static-pod-manifest"
	oldStaticPodManifestFlag = "manifest"
)

// ReadManifests reads each --static-pod-manifest SERVER=FILE: a static pod manifest stating
// the flags of the apiserver named SERVER in the snapshot. Any problem is one line naming the
// file.
func ReadManifests(specs []string) ([]discover.Manifest, error) {
	return ReadStaticPodManifests(specs, nil)
}

// ReadStaticPodManifests reads the values of --static-pod-manifest, then those of its former
// name --manifest; each error names the flag the value was given with.
func ReadStaticPodManifests(specs, old []string) ([]discover.Manifest, error) {
	var out []discover.Manifest
	seen := map[string]string{}
	type given struct{ flag, spec string }
	var all []given
	for _, s := range specs {
		all = append(all, given{"--" + StaticPodManifestFlag, s})
	}
	for _, s := range old {
		all = append(all, given{"--" + oldStaticPodManifestFlag, s})
	}
	for _, g := range all {
		server, file, ok := strings.Cut(g.spec, "=")
		if !ok || server == "" || file == "" {
			return nil, fmt.Errorf("%s %q: want SERVER=FILE (a server name as in the snapshot, and its kube-apiserver static pod manifest); the objects clients apply are preflight --manifests PATH", g.flag, g.spec)
		}
		if prev, dup := seen[server]; dup {
			return nil, fmt.Errorf("%s %s=%s: %s already has %s %s", g.flag, server, file, server, g.flag, prev)
		}
		seen[server] = file
		doc, err := ReadBounded(file, installer.MaxManifestBytes, "a static pod manifest")
		if err != nil {
			return nil, fmt.Errorf("%s %s=%s: %w", g.flag, server, file, err)
		}
		flags, err := installer.ParseManifest(file, doc)
		if err != nil {
			if !isPod(doc) {
				err = fmt.Errorf("%w; the objects clients apply are preflight --manifests PATH", err)
			}
			return nil, fmt.Errorf("%s %s=%s: %w", g.flag, server, file, err)
		}
		out = append(out, discover.Manifest{Server: server, Path: file, Flags: flags})
	}
	return out, nil
}

// isPod says doc's first document is a v1 Pod.
func isPod(doc []byte) bool {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	first, _, _ := strings.Cut(string(doc), "\n---")
	return yaml.Unmarshal([]byte(first), &head) == nil && head.APIVersion == "v1" && head.Kind == "Pod"
}

// ReadControlPlane reads --kubeadm-control-plane FILE, a Cluster API KubeadmControlPlane; ""
// is none. Any problem is one line naming the file.
func ReadControlPlane(file string) (*discover.ControlPlaneConfig, error) {
	if file == "" {
		return nil, nil
	}
	doc, err := ReadBounded(file, installer.MaxManifestBytes, "a KubeadmControlPlane")
	if err != nil {
		return nil, fmt.Errorf("--kubeadm-control-plane %s: %w", file, err)
	}
	cfg, err := installer.ParseKubeadmControlPlane(doc)
	if err != nil {
		return nil, fmt.Errorf("--kubeadm-control-plane %s: %w", file, err)
	}
	return &discover.ControlPlaneConfig{Path: file, Flags: cfg.Stated}, nil
}

// ReadBounded reads at most limit bytes of file; a longer file is an error, not cut short,
// saying it is not what (the document expected).
func ReadBounded(file string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("cannot read it: %w", unwrapPathError(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read it: %w", unwrapPathError(err))
	}
	if int64(len(b)) > limit {
		size := fmt.Sprintf("%d KiB", limit>>10)
		if limit%(1<<20) == 0 {
			size = fmt.Sprintf("%d MiB", limit>>20) // as docs/faults.md names the bound
		}
		return nil, fmt.Errorf("larger than %s: not %s", size, what)
	}
	return b, nil
}

// unwrapPathError drops the path an *os.PathError repeats (the caller names the file).
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
