package snapshot

import (
	"strconv"
	"time"
)

// APIService is what the routing rules need of one APIService (apiregistration.k8s.io/v1):
// the group/version it claims, where the aggregator sends its requests, and whether the
// aggregator takes it for available (docs/behaviour.md §16).
type APIService struct {
	// Name is the object's name, "<version>.<group>" (e.g. v1beta1.metrics.k8s.io).
	Name    string `json:"name"`
	Group   string `json:"group"`
	Version string `json:"version"`
	// Service is spec.service: the Service the aggregator proxies to. Nil for a local
	// APIService (a built-in or CRD group/version the server serves itself).
	Service *ServiceReference `json:"service,omitempty"`
	// Available is status.conditions[type=Available]; nil when the object has none yet.
	Available *APIServiceCondition `json:"available,omitempty"`
	// Resources are the resources any server's own aggregated /apis lists for the
	// group/version, Stale entries included (they keep the last resources the backend
	// listed; none when it never answered). Sorted.
	Resources []string `json:"resources,omitempty"`
	// Stale names the servers whose own aggregated /apis marks the group/version Stale (the
	// aggregator could not fetch the backend's discovery).
	Stale []string `json:"stale,omitempty"`
	// Unlisted names the servers whose own aggregated /apis does not list it at all.
	Unlisted []string `json:"unlisted,omitempty"`
}

// ServiceReference is an APIService's spec.service.
type ServiceReference struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Port is spec.service.port (443 when the object leaves it out).
	Port int32 `json:"port,omitempty"`
}

// APIServiceCondition is an APIService's Available condition.
type APIServiceCondition struct {
	// Status is "True", "False" or "Unknown".
	Status             string     `json:"status"`
	Reason             string     `json:"reason,omitempty"`
	Message            string     `json:"message,omitempty"`
	LastTransitionTime *time.Time `json:"lastTransitionTime,omitempty"`
}

// GroupVersion is the APIService's "group/version".
func (a APIService) GroupVersion() string { return GroupVersionString(a.Group, a.Version) }

// Aggregated reports whether the APIService is served by a backend through the aggregator
// (spec.service set), not by the apiserver itself.
func (a APIService) Aggregated() bool { return a.Service != nil }

// IsAvailable reports whether the Available condition is True.
func (a APIService) IsAvailable() bool { return a.Available != nil && a.Available.Status == "True" }

// String is the service reference as kubectl prints it: "kube-system/metrics-server:443", or
// "Local".
func (s *ServiceReference) String() string {
	if s == nil {
		return "Local"
	}
	if s.Port == 0 {
		return s.Namespace + "/" + s.Name
	}
	return s.Namespace + "/" + s.Name + ":" + strconv.Itoa(int(s.Port))
}

// AggregatedAPIService returns the aggregated APIService (spec.service set) of group/version
// gv ("metrics.k8s.io/v1beta1"), or nil.
func (c *Cluster) AggregatedAPIService(gv string) *APIService {
	for i := range c.APIServices {
		if a := &c.APIServices[i]; a.Aggregated() && a.GroupVersion() == gv {
			return a
		}
	}
	return nil
}
