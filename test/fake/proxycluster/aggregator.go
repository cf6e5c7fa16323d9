package proxycluster

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
)

// BodyAggregatorUnavailable: kube-aggregator's own answer for an aggregated APIService that is
// not Available (http.Error "service unavailable"; docs/behaviour.md §16, seen on v1.36.3 and
// v1.37.1 by the e2e TestAggregatedAPI).
const BodyAggregatorUnavailable = "service unavailable\n"

// unavailableAPIServices are the group/versions ("metrics.k8s.io/v1beta1") of the cluster's
// APIServices with spec.service that are not Available=True, read once from the shared list.
func (c *Cluster) unavailableAPIServices() map[string]bool {
	c.aggOnce.Do(func() {
		var l struct {
			Items []struct {
				Spec struct {
					Group, Version string
					Service        *struct{}
				}
				Status struct {
					Conditions []struct{ Type, Status string }
				}
			}
		}
		c.unavailable = map[string]bool{}
		if json.Unmarshal(c.shared.APIServicesJSON, &l) != nil {
			return
		}
		for _, it := range l.Items {
			available := false
			for _, cond := range it.Status.Conditions {
				available = available || (cond.Type == "Available" && cond.Status == "True")
			}
			if it.Spec.Service != nil && !available {
				c.unavailable[it.Spec.Group+"/"+it.Spec.Version] = true
			}
		}
	})
	return c.unavailable
}

// aggregatorAnswers writes the aggregator's 503 for a path under an unavailable aggregated
// APIService's group/version (/apis/<group>/<version> and below), with or without the
// loop-prevention header, and reports whether it did: the peer proxy plays no part (1.35+).
func (s *Server) aggregatorAnswers(w http.ResponseWriter, r *http.Request) bool {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 3 || parts[0] != "apis" || !s.c.unavailableAPIServices()[parts[1]+"/"+parts[2]] {
		return false
	}
	if r.Header.Get("Authorization") != "Bearer "+s.token() && (r.TLS == nil || len(r.TLS.PeerCertificates) == 0) {
		return false // authentication runs first: the fallback answers 401
	}
	writeRaw(w, http.StatusServiceUnavailable, ContentTypeText, BodyAggregatorUnavailable)
	return true
}

// aggregatorState is the Cluster's lazily read APIService availability.
type aggregatorState struct {
	aggOnce     sync.Once
	unavailable map[string]bool
}
