// Package snapshot is mvpctl's data model: what each kube-apiserver of a control plane serves
// by itself, how it is configured for the Mixed Version Proxy, and whether it answered.
//
// A Snapshot is plain data. pkg/discover produces one from a live cluster, pkg/simulate
// rewrites one step by step, and pkg/route evaluates requests against one. This package only
// reads, writes and validates the document; it does no network I/O.
package snapshot

import (
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

// APIVersion and Kind identify the document. The format is versioned so that files written by
// one release of mvpctl are rejected clearly, not misread, by another. mvpctl writes
// APIVersion; it reads APIVersionV1Alpha1 files too, converting them on read (docs/snapshot.md).
const (
	APIVersion = "mvpctl.io/v1alpha2"
	Kind       = "Snapshot"
	// APIVersionV1Alpha1 is the previous format: every derivable list written out.
	APIVersionV1Alpha1 = "mvpctl.io/v1alpha1"
)

// Snapshot is one observation of every kube-apiserver of a control plane.
type Snapshot struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// TakenAt is when the observation finished. Lease ages are measured against it.
	TakenAt time.Time `json:"takenAt,omitempty"`
	// Source says where the data came from: a kubeconfig context, endpoints, or profiles.
	Source string `json:"source,omitempty"`
	// Provisional is set on a version profile that no running apiserver was read for: one
	// derived from the newest recorded profile and the release's published modules, before
	// its kube-apiserver can be built (docs/profiles.md). Nil for anything observed.
	Provisional *Provisional `json:"provisional,omitempty"`
	// Cluster holds state shared by every server through etcd.
	Cluster Cluster  `json:"cluster,omitempty"`
	Servers []Server `json:"servers"`
	// Prometheus is client evidence read from a Prometheus (--prometheus): nil when none.
	Prometheus *PrometheusEvidence `json:"prometheus,omitempty"`
}

// Provisional says what a derived version profile rests on: every report that uses it says so
// first.
type Provisional struct {
	// Base is the recorded profile it was derived from ("v1.37.2").
	Base string `json:"base"`
	// Modules are the published modules read, as path@version with their go.sum hash.
	Modules []string `json:"modules"`
	// Derived says each fact taken from the modules, with the file and line it comes from.
	Derived []string `json:"derived"`
	// NotDerived says what the modules cannot tell, and is assumed to be as in Base.
	NotDerived []string `json:"notDerived,omitempty"`
}

// Cluster is the state every apiserver reads from the same etcd.
type Cluster struct {
	// CustomResourceGroupVersions lists "group/version" for every spec.versions[].name of every
	// CustomResourceDefinition, served or not. From 1.35 these GVs are never proxied.
	CustomResourceGroupVersions []string `json:"customResourceGroupVersions,omitempty"`
	// CustomResourceDefinitions is every CustomResourceDefinition with what it states of each
	// of its versions (served, deprecated, the deprecation warning), sorted by group and kind.
	// Nil when not recorded (older files, profiles, scenarios, or the list could not be read:
	// ListsRead says which).
	CustomResourceDefinitions []CustomResourceDefinition `json:"customResourceDefinitions,omitempty"`
	// AggregatedGroupVersions lists "group/version" of every APIService with spec.service set.
	// From 1.35 these GVs are never proxied.
	AggregatedGroupVersions []string `json:"aggregatedGroupVersions,omitempty"`
	// APIServices is every APIService with its service reference and Available condition
	// (docs/behaviour.md §16), sorted by name. Nil when not recorded (older files, profiles,
	// scenarios, or the list could not be read).
	APIServices []APIService `json:"apiServices,omitempty"`
	// StorageVersions is what 1.28–1.32 servers route on (internal.apiserver.k8s.io/v1alpha1).
	// Nil when not recorded; the router then derives it from each server's resources.
	StorageVersions []StorageVersion `json:"storageVersions,omitempty"`
	// ListsRead says which of the two lists above were read (an empty list read is not an
	// unread one): resource sources depend on it. Nil when not recorded (profiles, scenarios,
	// mvpctl.io/v1alpha1 files).
	ListsRead *ListsRead `json:"listsRead,omitempty"`
	// LB is set when the snapshot was sampled through one address (a load balancer) instead of
	// dialling each apiserver: the servers are then server classes, each expanded to its
	// members (Server.LB). Nil for a snapshot that read each apiserver by itself.
	LB *LBSampling `json:"lb,omitempty"`
	// Installer records what was read of the installer's configuration (kubeadm-config,
	// static pod manifests). Nil when nothing was looked for.
	Installer *Installer `json:"installer,omitempty"`
	// IdentityLeases records whether the identity leases in kube-system were listed: when
	// they were not, the servers are those found otherwise (the kubeconfig's server,
	// --endpoint, --contexts), and other apiservers, or down ones, are not known. Nil when not
	// recorded (older files, profiles, scenarios).
	IdentityLeases *IdentityLeases `json:"identityLeases,omitempty"`
}

// IdentityLeases is whether the identity leases in kube-system were listed, and if not why.
type IdentityLeases struct {
	Listed bool `json:"listed"`
	// Error is why they could not be listed, one line; empty when listed.
	Error string `json:"error,omitempty"`
}

// LeasesNotListed reports whether the snapshot records that its identity leases could not be
// listed (a snapshot that does not record it, nil, was not taken so).
func (c *Cluster) LeasesNotListed() bool {
	return c.IdentityLeases != nil && !c.IdentityLeases.Listed
}

// ListsRead records whether the cluster-wide lists were read.
type ListsRead struct {
	CustomResourceDefinitions bool `json:"customResourceDefinitions"`
	APIServices               bool `json:"apiServices"`
	// CustomResourceDefinitionsError is why the CustomResourceDefinitions were not read (a
	// missing permission, a timeout), one line; empty when read or not recorded.
	CustomResourceDefinitionsError string `json:"customResourceDefinitionsError,omitempty"`
}

// StorageVersion is the routing-relevant part of one StorageVersion object.
type StorageVersion struct {
	// Group is "" for the core group.
	Group    string `json:"group"`
	Resource string `json:"resource"`
	// Servers lists each apiserver's entry in status.storageVersions.
	Servers []StorageVersionServer `json:"servers"`
}

// StorageVersionServer is one status.storageVersions[] entry.
type StorageVersionServer struct {
	APIServerID string `json:"apiServerID"`
	// ServedVersions are "group/version" strings, or "v1" for the core group, as written by the
	// apiserver.
	ServedVersions []string `json:"servedVersions"`
}

// Server is one kube-apiserver.
type Server struct {
	// Name is how mvpctl refers to the server: unique within a snapshot. Usually the hostname.
	Name string `json:"name"`
	// ID is the server's identity: its identity lease name in kube-system (apiserver-<hash>).
	// Empty when unknown; a server without an ID is never a proxy target.
	ID       string `json:"id,omitempty"`
	Hostname string `json:"hostname,omitempty"`
	// Endpoint is the URL mvpctl reached the server at.
	Endpoint string `json:"endpoint,omitempty"`
	// FoundBy says how the server was found: lease, endpoint, context, profile or scenario.
	FoundBy string `json:"foundBy,omitempty"`
	// Context is the kubeconfig context whose credentials read the server (with --contexts,
	// the server's own; else the current one). Only its name is recorded.
	Context string `json:"context,omitempty"`
	// PeerAdvertiseAddress is the ip:port from the identity lease annotation
	// kubernetes.io/peer-advertise-address; peers dial it when proxying.
	PeerAdvertiseAddress string `json:"peerAdvertiseAddress,omitempty"`
	// IdentityLease is nil when the server has no identity lease (gracefully stopped on
	// 1.35+, or APIServerIdentity off).
	IdentityLease *Lease `json:"identityLease,omitempty"`

	// Version is the binary version (gitVersion from /version), e.g. v1.36.3. It selects the
	// routing era: the peer-proxy code that runs is the binary's.
	Version string `json:"version"`
	// EmulatedVersion is major.minor from /version's emulation fields, when reported.
	EmulatedVersion string `json:"emulatedVersion,omitempty"`

	PeerProxy PeerProxy `json:"peerProxy"`
	// Stated are the flags the installer's configuration states the server runs with (a
	// kubeadm-config ConfigMap, a static pod manifest). Nil when none was read. What the server
	// does (PeerProxy) wins where the two disagree; an upgrade starts it with these.
	Stated *StatedFlags `json:"stated,omitempty"`

	// Reachable is false when mvpctl could not read the server; Error says why.
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`

	// DiscoveryFormat is the discovery document mvpctl used for Resources: one of
	// DiscoveryNoPeer, DiscoveryV2, DiscoveryV2Beta1, DiscoveryLegacy, or DiscoveryProfile.
	DiscoveryFormat string `json:"discoveryFormat,omitempty"`
	// Resources is what the server serves by itself (its non-peer discovery), top-level
	// resources only; subresources are listed on their resource. A mvpctl.io/v1alpha2 file
	// leaves it out when CoreAPI, APIs and Cluster.ListsRead give it (DeriveResources); it is
	// derived on read, so in memory it is always set.
	Resources []Resource `json:"resources,omitempty"`
	// PeerAggregated is the server's default /apis (peer-aggregated discovery, 1.35+): what it
	// believes the whole control plane serves. Nil when the server does not aggregate. Left out
	// of a file, and derived on read, when DefaultAPIs gives it (DerivePeerAggregated).
	PeerAggregated []Resource `json:"peerAggregated,omitempty"`

	// CoreAPI is the server's own /api aggregated discovery document (v2; the core group), as
	// served, when it answered /api that way. With APIs, it is what Resources is built from.
	CoreAPI *DiscoveryDocument `json:"coreAPI,omitempty"`

	// APIs is the server's own /apis aggregated discovery document (v2; profile=nopeer on
	// 1.35+), as served: the local input of its peer-aggregated merge, and what its peers
	// fetch from it. Nil when not recorded (the server did not answer v2, or the snapshot
	// predates the field). `mvpctl discovery` works from it.
	APIs *DiscoveryDocument `json:"apis,omitempty"`
	// DefaultAPIs is the server's default /apis document (v2, no profile), as served. Recorded
	// when the server aggregates its peers' discovery (PeerProxy.PeerAggregatedDiscovery), so
	// `mvpctl discovery diff` can check it offline.
	DefaultAPIs *DiscoveryDocument `json:"defaultAPIs,omitempty"`

	// LB is set on a snapshot sampled through a load balancer (Cluster.LB): the server is one
	// member of a server class, not an apiserver read by itself.
	LB *ServerLB `json:"lb,omitempty"`

	// Requests is what the server counted of its clients' requests since its process started
	// (apiserver_request_total on /metrics): client evidence for preflight. Nil when not read
	// (a snapshot older than the field, a profile, a scenario).
	Requests *RequestCounts `json:"requests,omitempty"`
}

// RequestCounts is a server's apiserver_request_total, summed by group/version/resource,
// subresource and verb, over the span from its process's start to the read.
type RequestCounts struct {
	// ReadAt is when /metrics was read: the end of the span.
	ReadAt time.Time `json:"readAt"`
	// StartedAt is the server process's start (process_start_time_seconds): the counters
	// began at zero then. Nil when the server did not export it.
	StartedAt *time.Time `json:"startedAt,omitempty"`
	// Error says why the counters could not be read (no permission on /metrics, a timeout);
	// Counts is then empty and says nothing.
	Error string `json:"error,omitempty"`
	// Counts are the non-zero counts of resource requests, sorted.
	Counts []RequestCount `json:"counts,omitempty"`
}

// RequestCount is the number of requests for one resource (or subresource) by one verb.
type RequestCount struct {
	Group       string `json:"group,omitempty"`
	Version     string `json:"version"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	// Verb is as the metric labels it: GET, LIST, WATCH, CREATE, UPDATE, PATCH, DELETE, ...
	Verb  string `json:"verb"`
	Count int64  `json:"count"`
}

// GVR is the count's group/version/resource.
func (c RequestCount) GVR() GVR { return GVR{Group: c.Group, Version: c.Version, Resource: c.Resource} }

// Span is the time the counters cover, zero when the start is unknown.
func (r *RequestCounts) Span() time.Duration {
	if r == nil || r.StartedAt == nil {
		return 0
	}
	return r.ReadAt.Sub(*r.StartedAt)
}

// DiscoveryDocument is one aggregated discovery document (apidiscovery.k8s.io/v2
// APIGroupDiscoveryList) as a server served it.
type DiscoveryDocument struct {
	// ETag is the response's ETag header as sent: the double-quoted uppercase hex SHA-512 of
	// the JSON of {items} (docs/behaviour.md §7). Empty when the response had none.
	ETag  string                             `json:"etag,omitempty"`
	Items []apidiscoveryv2.APIGroupDiscovery `json:"items"`
}

// Discovery formats recorded in Server.DiscoveryFormat.
const (
	DiscoveryNoPeer   = "v2;profile=nopeer"
	DiscoveryV2       = "v2"
	DiscoveryV2Beta1  = "v2beta1"
	DiscoveryLegacy   = "legacy"
	DiscoveryProfiled = "profile"
)

// Lease is the routing-relevant part of an identity lease.
type Lease struct {
	Name           string     `json:"name"`
	HolderIdentity string     `json:"holderIdentity,omitempty"`
	RenewTime      *time.Time `json:"renewTime,omitempty"`
	// Created is the lease's creationTimestamp: when its server started, or started again
	// after a 1.35+ graceful stop deleted it.
	Created *time.Time `json:"created,omitempty"`
}

// PeerProxy records what is known of the server's Mixed Version Proxy configuration. A nil
// field means "not known"; the router then falls back to the version's default and says so.
type PeerProxy struct {
	// GateEnabled: the UnknownVersionInteroperabilityProxy feature gate.
	GateEnabled *bool `json:"gateEnabled,omitempty"`
	// FilterInstalled: the proxy filter exists (gate on and --peer-ca-file set).
	FilterInstalled *bool `json:"filterInstalled,omitempty"`
	// PeerAggregatedDiscovery: the default /apis merges peers' discovery (1.35+).
	PeerAggregatedDiscovery *bool `json:"peerAggregatedDiscovery,omitempty"`
	// EndpointResolvable: the server's peer endpoint lease (an etcd key with a 15 s TTL) is
	// present, so peers can resolve its address. Nil means "assume yes while reachable".
	EndpointResolvable *bool `json:"endpointResolvable,omitempty"`
	// EndpointWindow is set instead of EndpointResolvable when the server stopped answering so
	// recently that its endpoint key may or may not have expired: it lives at least until
	// AliveUntil and is gone by GoneBy (from its identity lease's last renewal).
	EndpointWindow *EndpointWindow `json:"endpointWindow,omitempty"`
	// DroppedByPeers: the server stopped answering and its peers have rebuilt their
	// peer-discovery caches since (an identity lease was created, deleted or changed holder):
	// a rebuild drops a server whose discovery cannot be fetched, so peers no longer route to
	// it. Set by simulations, and by discovery when another identity lease was created after
	// this server stopped renewing its own (mvp.DeadBy).
	DroppedByPeers bool `json:"droppedByPeers,omitempty"`
	// AdvertiseAddressReachable: the server's peer-advertise address accepts connections
	// (dialled by mvpctl, or set by a simulation). False: peers can neither fetch its discovery
	// nor proxy to it. Nil: not checked.
	AdvertiseAddressReachable *bool `json:"advertiseAddressReachable,omitempty"`
	// PeerCATrustsPeers: the server's --peer-ca-file trusts its peers' serving certificates, so
	// its peer-discovery fetches pass TLS verification. A live snapshot cannot see it (the
	// server's peer-aggregated /apis shows its consequence); simulations set it. Nil: not known.
	PeerCATrustsPeers *bool `json:"peerCATrustsPeers,omitempty"`
	// PeerDiscoverySyncErrors is apiserver_peer_discovery_sync_errors_total by its type label
	// (lease_list, hostport_resolution, fetch_discovery; 1.36+), read from /metrics when the
	// caller may. Nil when not read.
	PeerDiscoverySyncErrors map[string]float64 `json:"peerDiscoverySyncErrors,omitempty"`
	// Evidence says how the fields above were established, e.g. readyz hook names.
	Evidence []string `json:"evidence,omitempty"`
	// EvidenceKinds is what each line of Evidence is (how it is known, what it speaks of), by
	// index: decisions read these, never the sentences. Set by whoever adds a line
	// (AddEvidence) and, for a file read, derived from its lines; a line without one is an
	// observation (KindOf).
	EvidenceKinds []EvidenceKind `json:"-"`
}

// EndpointWindow bounds when a dead server's peer endpoint key expires.
type EndpointWindow struct {
	AliveUntil time.Time `json:"aliveUntil"`
	GoneBy     time.Time `json:"goneBy"`
}

// Resource is one group/version/resource a server serves.
type Resource struct {
	// Group is "" for the core group.
	Group        string   `json:"group"`
	Version      string   `json:"version"`
	Resource     string   `json:"resource"`
	Kind         string   `json:"kind,omitempty"`
	Namespaced   bool     `json:"namespaced"`
	Verbs        []string `json:"verbs,omitempty"`
	Subresources []string `json:"subresources,omitempty"`
	// Source is where the group comes from: SourceBuiltin, SourceCRD or SourceAggregated.
	Source string `json:"source,omitempty"`
}

// Resource sources.
const (
	SourceBuiltin    = "builtin"
	SourceCRD        = "crd"
	SourceAggregated = "aggregated"
)

// Ptr returns a pointer to b, for PeerProxy fields.
func Ptr(b bool) *bool { return &b }
