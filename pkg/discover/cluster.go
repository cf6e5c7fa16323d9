package discover

import (
	"context"
	"errors"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/internal/textsafe"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// readCluster reads the cluster-wide lists once, through the first server that answered, and
// records which of them it read (group sources depend on it: snapshot.Cluster.Sources).
func (d *discoverer) readCluster(ctx context.Context, results []*result, timeout time.Duration) snapshot.Cluster {
	cluster := snapshot.Cluster{ListsRead: &snapshot.ListsRead{}}
	// Through a server that answered: when none did, the lists would only fail the same way.
	var c *serverClient
	for _, r := range sortedResults(results) {
		if r.client != nil && r.err == nil {
			c = r.client
			break
		}
	}
	if c == nil {
		return cluster
	}
	d.progress("reading CustomResourceDefinitions and APIServices through %s", c.base)
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if crds, err := listCRDs(lctx, c); err != nil {
		d.warn("cannot list CustomResourceDefinitions (%s): group sources are left empty where unknown, 1.35+ routing exclusions are incomplete, and objects of add-on APIs are not judged", err)
		cluster.ListsRead.CustomResourceDefinitionsError = textsafe.Visible(d.red.Clean(err.Error()))
	} else {
		cluster.CustomResourceGroupVersions, cluster.CustomResourceDefinitions, cluster.ListsRead.CustomResourceDefinitions = crds.groupVersions, crds.crds, true
		for _, cut := range crds.cut {
			d.warn("CustomResourceDefinitions: %s", cut)
		}
	}
	actx, acancel := context.WithTimeout(ctx, timeout)
	defer acancel()
	if as, err := listAPIServices(actx, c); err != nil {
		d.warn("cannot list APIServices (%s): group sources are left empty where unknown, 1.35+ routing exclusions are incomplete, and aggregated APIs are predicted as if absent", err)
	} else {
		cluster.APIServices, cluster.ListsRead.APIServices = as, true
		cluster.AggregatedGroupVersions = aggregatedGroupVersions(as)
		recordAPIServiceDiscovery(cluster.APIServices, results)
		d.noteUnavailableAPIServices(cluster.APIServices)
	}
	cluster.StorageVersions = d.readStorageVersions(ctx, results, timeout)
	cluster.Installer = d.readKubeadmConfig(ctx, c, timeout)
	return cluster
}

// readStorageVersions reads StorageVersions when a 1.28–1.32 server serves the API: those
// versions route on them. Newer servers route on discovery, so the objects are not read.
func (d *discoverer) readStorageVersions(ctx context.Context, results []*result, timeout time.Duration) []snapshot.StorageVersion {
	svGVR := snapshot.GVR{Group: "internal.apiserver.k8s.io", Version: "v1alpha1", Resource: "storageversions"}
	svEra := false
	for _, r := range sortedResults(results) {
		if r.client == nil || r.err != nil || r.minor < 0 || !mvp.EraOf(r.binaryVersion()).RoutesOnStorageVersions() {
			continue
		}
		svEra = true
		srv := snapshot.Server{}
		if r.doc != nil {
			srv.Resources = r.doc.resources
		}
		if !srv.Serves(svGVR) {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, timeout)
		svs, err := listStorageVersions(lctx, r.client)
		cancel()
		var e *Error
		switch {
		case errors.As(err, &e) && e.Kind == apiclient.KindNotFound:
			continue
		case err != nil:
			d.warn("cannot list StorageVersions through %s (%s): 1.28–1.32 routing will be derived from discovery", serverName(r), err)
			return nil
		}
		return svs
	}
	if svEra {
		d.warn("1.28–1.32 servers found, but none serves %s: StorageVersions not recorded (the proxy needs that API in those versions)", svGVR.GroupVersion())
	}
	return nil
}
