package discover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/installer"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Manifest is a static pod manifest read for one apiserver (--manifest SERVER=FILE).
type Manifest struct {
	// Server is the apiserver's name in the snapshot.
	Server string
	// Path is the file read.
	Path  string
	Flags snapshot.StatedFlags
}

// ControlPlaneConfig is a Cluster API KubeadmControlPlane read from a file
// (--kubeadm-control-plane): the flags every control-plane machine it creates starts with.
type ControlPlaneConfig struct {
	Path  string
	Flags snapshot.StatedFlags
}

// kubeadmConfigRBAC is the permission reading kube-system/kubeadm-config takes.
const kubeadmConfigRBAC = "get on configmaps/kubeadm-config in kube-system (the Role and RoleBinding mvpctl-kubeadm-config in deploy/rbac/mvpctl-clusterrole.yaml)"

const kubeadmConfigPath = "/api/v1/namespaces/" + installer.KubeadmConfigNamespace + "/configmaps/" + installer.KubeadmConfigName

// MaxKubeadmConfig bounds the kubeadm-config answer: a ConfigMap's data is at most 1 MiB
// (the apiserver refuses more), its JSON a little more; a larger answer is not the ConfigMap
// and is not read whole (64 MB once took 310 MB to read and parse).
const MaxKubeadmConfig = 2 << 20

// readKubeadmConfig reads kube-system/kubeadm-config through c. Not there (404) is not a
// kubeadm cluster, recorded silently; a 403 or a malformed ConfigMap is one warning, and the
// snapshot is taken without it. The ClusterConfiguration's flags are kept for stateInstaller.
func (d *discoverer) readKubeadmConfig(ctx context.Context, c *serverClient, timeout time.Duration) *snapshot.Installer {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in := &snapshot.Installer{}
	resp, err := c.Get(apiclient.WithMaxBody(ctx, MaxKubeadmConfig), kubeadmConfigPath, "application/json")
	if err == nil && resp.Truncated {
		err = apiclient.InvalidDoc(c.base, kubeadmConfigPath, fmt.Sprintf("the answer is larger than %d MiB, more than a ConfigMap holds", MaxKubeadmConfig>>20))
	}
	if err == nil && resp.Cut != nil {
		err = apiclient.DecodeError(c.base, kubeadmConfigPath, len(resp.Body), resp.Cut)
	}
	if err == nil {
		err = c.checkJSON(kubeadmConfigPath, resp)
	}
	var e *Error
	switch {
	case errors.As(err, &e) && e.Kind == apiclient.KindNotFound:
		in.KubeadmConfig = snapshot.KubeadmConfigNotPresent
		return in
	case errors.As(err, &e) && e.Kind == apiclient.KindForbidden:
		in.KubeadmConfig, in.Detail = snapshot.KubeadmConfigForbidden, "403 Forbidden"
		d.warn("cannot read %s (403 Forbidden): the installer's configuration is not used; to use it, grant %s", installer.KubeadmConfigObject, kubeadmConfigRBAC)
		return in
	case err != nil:
		in.KubeadmConfig, in.Detail = snapshot.KubeadmConfigUnreadable, d.red.Clean(errMsg(err))
		d.warn("cannot read %s (%s): the installer's configuration is not used", installer.KubeadmConfigObject, in.Detail)
		return in
	}
	cfg, err := installer.ParseKubeadmConfigMap(resp.Body)
	if err != nil {
		in.KubeadmConfig, in.Detail = snapshot.KubeadmConfigUnreadable, d.red.Clean(err.Error())
		d.warn("%s is malformed: %s: the installer's configuration is not used; fix it with kubeadm (kubeadm init phase upload-config kubeadm)", installer.KubeadmConfigObject, err)
		return in
	}
	in.KubeadmConfig, in.Detail, in.KubernetesVersion = snapshot.KubeadmConfigRead, cfg.APIVersion, cfg.KubernetesVersion
	d.kubeadmStated = &cfg.Stated
	d.progress("read %s (%s, kubernetesVersion %s)", installer.KubeadmConfigObject, cfg.APIVersion, cfg.KubernetesVersion)
	return in
}

// stateInstaller gives each server the flags the installer states for it: its --manifest if
// one was given (the node's own command line), else the KubeadmControlPlane's (what Cluster
// API starts every new machine with, the upgraded ones among them), else the kubeadm-config
// ClusterConfiguration's (every control-plane node gets its extraArgs). A --manifest naming
// no server of the snapshot is an error.
func (d *discoverer) stateInstaller(snap *snapshot.Snapshot) error {
	byServer := map[string]Manifest{}
	for _, m := range d.opts.Manifests {
		if snap.Find(m.Server) == nil {
			return fmt.Errorf("--manifest %s=%s: no apiserver %q in the snapshot (apiservers: %s)", m.Server, m.Path, m.Server, strings.Join(snap.ServerNames(), ", "))
		}
		byServer[m.Server] = m
	}
	clusterWide := d.kubeadmStated
	if kcp := d.opts.ControlPlane; kcp != nil {
		clusterWide = &kcp.Flags
	}
	if (len(byServer) > 0 || d.opts.ControlPlane != nil) && snap.Cluster.Installer == nil {
		snap.Cluster.Installer = &snapshot.Installer{}
	}
	if kcp := d.opts.ControlPlane; kcp != nil {
		snap.Cluster.Installer.KubeadmControlPlane = kcp.Path
	}
	for i := range snap.Servers {
		srv := &snap.Servers[i]
		if m, ok := byServer[srv.Name]; ok {
			flags := m.Flags
			srv.Stated = &flags
			snap.Cluster.Installer.Manifests = append(snap.Cluster.Installer.Manifests, m.Server+"="+m.Path)
			continue
		}
		if clusterWide != nil {
			flags := *clusterWide
			flags.Flags = append([]snapshot.Flag(nil), flags.Flags...)
			srv.Stated = &flags
		}
	}
	return nil
}
