package preflight

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Live objects judged like the objects of a manifest, on the apiVersion and kind their
// kubectl.kubernetes.io/last-applied-configuration states (read with their managedFields, of
// the GVRs at risk): the manifest `kubectl apply` last applied is applied again after the
// upgrade.

// SourceLive is the Source (and the place) of a live object's row.
const SourceLive = "live"

// liveRead is the live objects of reads as one read of objects, each object once (a resource
// read through two of its versions lists the same objects twice), and how many annotations
// could not be read.
func liveRead(reads []snapshot.ManagedFields) (read replay.ManifestRead, unreadable int) {
	read.Path = SourceLive
	seen := map[[4]string]bool{}
	for _, mf := range reads {
		unreadable += mf.LastAppliedUnreadable
		for _, la := range mf.LastApplied {
			k := [4]string{mf.Via.Group, mf.Via.Resource, la.Namespace, la.Name}
			if seen[k] {
				continue
			}
			seen[k] = true
			read.Objects = append(read.Objects, replay.ManifestObject{APIVersion: la.APIVersion, Kind: la.Kind, File: SourceLive, Namespace: la.Namespace, Name: la.Name})
		}
	}
	return read, unreadable
}

// withLiveObjects adds the live objects of reads to the objects judged, and warns of the
// annotations that could not be read.
func (o *Options) withLiveObjects(reads []snapshot.ManagedFields) {
	read, unreadable := liveRead(reads)
	if unreadable > 0 {
		o.warn(fmt.Sprintf("%d live object(s) with a last-applied-configuration annotation that states no apiVersion and kind (not JSON, or over 256 KiB): not judged", unreadable))
	}
	if len(read.Objects) > 0 {
		o.manifestReads = append(append([]replay.ManifestRead(nil), o.manifestReads...), read)
	}
}
