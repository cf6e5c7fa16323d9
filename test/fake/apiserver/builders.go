package apiserver

import (
	_ "embed"
	"strings"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// Real-shaped CustomResourceDefinitionList and APIServiceList bodies (see testdata/README.md):
// one CRD with a served v1 and an unserved v1beta1, and one aggregated APIService
// (metrics.k8s.io/v1beta1) next to two local ones.
var (
	//go:embed testdata/crds.json
	CRDsJSONFixture []byte
	//go:embed testdata/apiservices.json
	APIServicesJSONFixture []byte
)

// Ver is a version with its resources, freshness Current.
func Ver(v string, rs ...apidiscoveryv2.APIResourceDiscovery) apidiscoveryv2.APIVersionDiscovery {
	return apidiscoveryv2.APIVersionDiscovery{Version: v, Resources: rs, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
}

// StaleVer is a version marked Stale, as for an aggregated API whose backend is down.
func StaleVer(v string, rs ...apidiscoveryv2.APIResourceDiscovery) apidiscoveryv2.APIVersionDiscovery {
	d := Ver(v, rs...)
	d.Freshness = apidiscoveryv2.DiscoveryFreshnessStale
	return d
}

// Group is an aggregated-discovery group ("" for core).
func Group(name string, vs ...apidiscoveryv2.APIVersionDiscovery) apidiscoveryv2.APIGroupDiscovery {
	return apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: name}, Versions: vs}
}

// AllVerbs are a normal resource's verbs.
var AllVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// Resource is a resource with the usual verbs and the given subresources.
func Resource(resource, kind string, namespaced bool, subs ...string) apidiscoveryv2.APIResourceDiscovery {
	scope := apidiscoveryv2.ScopeCluster
	if namespaced {
		scope = apidiscoveryv2.ScopeNamespace
	}
	r := apidiscoveryv2.APIResourceDiscovery{Resource: resource, ResponseKind: &metav1.GroupVersionKind{Kind: kind},
		Scope: scope, SingularResource: strings.ToLower(kind), Verbs: AllVerbs}
	for _, s := range subs {
		r.Subresources = append(r.Subresources, apidiscoveryv2.APISubresourceDiscovery{Subresource: s,
			ResponseKind: &metav1.GroupVersionKind{Kind: kind}, Verbs: []string{"get", "patch", "update"}})
	}
	return r
}

// CoreGroup is a small core group: configmaps, namespaces, pods with subresources.
func CoreGroup() apidiscoveryv2.APIGroupDiscovery {
	return Group("", Ver("v1",
		Resource("configmaps", "ConfigMap", true),
		Resource("namespaces", "Namespace", false, "finalize", "status"),
		Resource("pods", "Pod", true, "binding", "eviction", "exec", "log", "status"),
	))
}

// BuiltinGroups is a small 1.36-like /apis; withBatch false mimics --runtime-config=batch/v1=false.
func BuiltinGroups(withBatch bool) []apidiscoveryv2.APIGroupDiscovery {
	gs := []apidiscoveryv2.APIGroupDiscovery{
		Group("apiregistration.k8s.io", Ver("v1", Resource("apiservices", "APIService", false, "status"))),
		Group("apps", Ver("v1", Resource("deployments", "Deployment", true, "scale", "status"))),
	}
	if withBatch {
		gs = append(gs, Group("batch", Ver("v1", Resource("cronjobs", "CronJob", true, "status"), Resource("jobs", "Job", true, "status"))))
	}
	return append(gs,
		Group("coordination.k8s.io", Ver("v1", Resource("leases", "Lease", true))),
		Group("apiextensions.k8s.io", Ver("v1", Resource("customresourcedefinitions", "CustomResourceDefinition", false, "status"))),
	)
}

// IdentityLease is a kube-apiserver identity lease as kube-apiserver writes it; addr "" means
// no peer-advertise annotation (gate off).
func IdentityLease(name, hostname, addr string, renew time.Time) coordinationv1.Lease {
	holder := name + "_6b8b6a3e-2a1f-4f6c-9f0e-0d5b0c7f1e2a"
	dur := int32(3600)
	l := coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system",
			Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": hostname}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur,
			AcquireTime: &metav1.MicroTime{Time: renew.Add(-time.Hour)}, RenewTime: &metav1.MicroTime{Time: renew}},
	}
	if addr != "" {
		l.Annotations = map[string]string{"kubernetes.io/peer-advertise-address": addr}
	}
	return l
}

// Hooks136 are the MVP readiness hooks of a 1.36 server with the proxy built (docs/behaviour.md §1).
var Hooks136 = []string{
	"poststarthook/peer-endpoint-reconciler-controller",
	"poststarthook/local-discovery-cache-sync",
	"poststarthook/peer-discovery-workers",
	"poststarthook/mixed-version-proxy-handler",
}

// ClientConfig is a kubeconfig-like client config for the fake servers.
func ClientConfig(p *PKI, host, token string) *rest.Config {
	return &rest.Config{Host: host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: p.CAPEM}}
}
