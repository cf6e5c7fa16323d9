package discover

import (
	"context"
	"errors"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// readCluster reads the cluster-wide lists once, through the first server that answered, and
// indexes group sources.
func (d *discoverer) readCluster(ctx context.Context, results []*result, timeout time.Duration) (snapshot.Cluster, sourceIndex) {
	var cluster snapshot.Cluster
	idx := sourceIndex{}
	// Through a server that answered: when none did, the lists would only fail the same way.
	var c *serverClient
	for _, r := range sortedResults(results) {
		if r.client != nil && r.err == nil {
			c = r.client
			break
		}
	}
	if c == nil {
		return cluster, idx
	}
	d.progress("reading CustomResourceDefinitions and APIServices through %s", c.base)
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if gvs, err := listCRDGroupVersions(lctx, c); err != nil {
		d.warn("cannot list CustomResourceDefinitions (%s): group sources are left empty where unknown, and 1.35+ routing exclusions are incomplete", err)
	} else {
		cluster.CustomResourceGroupVersions, idx.crd, idx.crdKnown = gvs, toSet(gvs), true
	}
	actx, acancel := context.WithTimeout(ctx, timeout)
	defer acancel()
	if gvs, err := listAggregatedGroupVersions(actx, c); err != nil {
		d.warn("cannot list APIServices (%s): group sources are left empty where unknown, and 1.35+ routing exclusions are incomplete", err)
	} else {
		cluster.AggregatedGroupVersions, idx.aggregated, idx.aggKnown = gvs, toSet(gvs), true
	}
	cluster.StorageVersions = d.readStorageVersions(ctx, results, timeout)
	return cluster, idx
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

// sourceIndex says where a group version comes from. crdKnown/aggKnown are false when that
// list could not be read: then a non-aggregated, non-core group could be either, and its
// source is left empty rather than guessed.
type sourceIndex struct {
	crd, aggregated map[string]bool
	crdKnown        bool
	aggKnown        bool
}

func (s sourceIndex) source(r snapshot.Resource) string {
	gv := r.GroupVersion()
	switch {
	case r.Group == "":
		return snapshot.SourceBuiltin
	case s.aggregated[gv]:
		// An aggregated APIService takes the group version away from anything local.
		return snapshot.SourceAggregated
	case s.crd[gv]:
		return snapshot.SourceCRD
	case s.crdKnown && s.aggKnown:
		return snapshot.SourceBuiltin
	}
	return ""
}

func setSources(rs []snapshot.Resource, idx sourceIndex) {
	for i := range rs {
		rs[i].Source = idx.source(rs[i])
	}
}

func toSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}
