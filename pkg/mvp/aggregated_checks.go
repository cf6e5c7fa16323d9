package mvp

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// AvailabilityCheckTimeout is how long each of the availability controller's five parallel
// GET /apis/<group>/<version> waits for the backend (kube-aggregator
// remote_available_controller.go: an http.Client with a 5 s timeout, a 6 s guard): a backend
// that answers its discovery more slowly is Available=False FailedDiscoveryCheck.
const AvailabilityCheckTimeout = "5 s"

// DiscoveryCheckFailure is what went wrong in a FailedDiscoveryCheck, as its message says: the
// reason is the same whether nothing listens, the backend answers its discovery with an error,
// or it answers too slowly (docs/behaviour.md §16).
type DiscoveryCheckFailure string

const (
	// CheckRefused: "dial tcp …: connect: connection refused" — nothing listens there.
	CheckRefused DiscoveryCheckFailure = "refused"
	// CheckBadStatus: "bad status from <url>: <code>" — the backend answered its discovery
	// with a status outside 2xx.
	CheckBadStatus DiscoveryCheckFailure = "bad-status"
	// CheckTimeout: "… context deadline exceeded (Client.Timeout exceeded while awaiting
	// headers)", or "… context deadline exceeded" alone (seen on v1.36.3/v1.37.1:
	// the client's deadline fired outside the headers wait), or the guard's
	// "timed out waiting for <url>" — no answer within AvailabilityCheckTimeout.
	CheckTimeout DiscoveryCheckFailure = "timeout"
	// CheckOther: any other message (a TLS or DNS error, …).
	CheckOther DiscoveryCheckFailure = "other"
)

var badStatusRE = regexp.MustCompile(`bad status from \S+: (\d{3})`)

// DiscoveryCheckFailureOf reads a FailedDiscoveryCheck message; for CheckBadStatus it also
// returns the status the backend answered.
func DiscoveryCheckFailureOf(message string) (DiscoveryCheckFailure, string) {
	if m := badStatusRE.FindStringSubmatch(message); m != nil {
		return CheckBadStatus, m[1]
	}
	switch {
	case strings.Contains(message, "Client.Timeout exceeded"), strings.Contains(message, "context deadline exceeded"),
		strings.Contains(message, "timed out waiting for"):
		return CheckTimeout, ""
	case strings.Contains(message, "connection refused"):
		return CheckRefused, ""
	}
	return CheckOther, ""
}

// DiscoveryCheckCause is the FailedDiscoveryCheck of a in one sentence an operator can act on,
// or "" when a's condition is not one.
func DiscoveryCheckCause(a snapshot.APIService) string {
	if a.Available == nil || a.Available.Reason != "FailedDiscoveryCheck" {
		return ""
	}
	path := "GET /apis/" + a.GroupVersion()
	switch f, code := DiscoveryCheckFailureOf(a.Available.Message); f {
	case CheckBadStatus:
		return fmt.Sprintf("the availability check's %s reached the backend, which answered HTTP %s", path, code)
	case CheckTimeout:
		return fmt.Sprintf("the backend did not answer the availability check's %s within its %s timeout", path, AvailabilityCheckTimeout)
	case CheckRefused:
		return fmt.Sprintf("nothing accepted the availability check's %s: the connection was refused", path)
	}
	return ""
}

// APIServiceChecks is what an operator checks when an aggregated APIService is not available,
// per its condition's reason (kube-aggregator AvailableConditionController) and, for
// FailedDiscoveryCheck, what its message says went wrong.
func APIServiceChecks(a snapshot.APIService) []string {
	svc := a.Service.String()
	get := fmt.Sprintf("kubectl get apiservice %s -o yaml (status.conditions)", a.Name)
	var ns, name string
	if a.Service != nil {
		ns, name = a.Service.Namespace, a.Service.Name
	}
	reason, message := "", ""
	if a.Available != nil {
		reason, message = a.Available.Reason, a.Available.Message
	}
	switch reason {
	case "ServiceNotFound":
		return []string{fmt.Sprintf("create the Service %s/%s the APIService names (kubectl -n %s get service %s)", ns, name, ns, name), get}
	case "ServicePortError":
		return []string{fmt.Sprintf("make the Service %s/%s expose port %d the APIService names (kubectl -n %s get service %s -o yaml)", ns, name, a.Service.Port, ns, name), get}
	case "EndpointsNotFound", "MissingEndpoints":
		return []string{fmt.Sprintf("make the Service %s/%s have ready endpoints: kubectl -n %s get endpointslices -l kubernetes.io/service-name=%s, and the backend pods behind it", ns, name, ns, name), get}
	}
	first := fmt.Sprintf("check that the backend behind %s answers (its pods: kubectl -n %s get pods, their logs), and that every apiserver can reach the Service", svc, ns)
	if reason == "FailedDiscoveryCheck" {
		path := "GET /apis/" + a.GroupVersion()
		switch f, code := DiscoveryCheckFailureOf(message); f {
		case CheckBadStatus:
			first = fmt.Sprintf("the backend behind %s answers its discovery (%s) with HTTP %s: read its logs (kubectl -n %s logs <its pods>); the APIService is Available again at the first 2xx", svc, path, code, ns)
		case CheckTimeout:
			first = fmt.Sprintf("the backend behind %s takes longer than %s to answer %s: check its load and latency (its logs, CPU limits) and the network path from every apiserver to it", svc, AvailabilityCheckTimeout, path)
		}
	}
	return []string{
		first,
		fmt.Sprintf("check the Service and its endpoints: kubectl -n %s get service,endpointslices -l kubernetes.io/service-name=%s", ns, name),
		get,
	}
}

// BackendAnswerNote is what an answer of an Available APIService means when it is an error or
// slow: it is the backend's own, passed through unchanged by the server's aggregator, so the
// operator looks at the backend, not at the apiservers.
func BackendAnswerNote(a snapshot.APIService) string {
	ns := "<namespace>"
	if a.Service != nil {
		ns = a.Service.Namespace
	}
	return fmt.Sprintf("an error (a 500, a 503 with a Status body) or a slow answer for %s is the backend's own, passed through unchanged: the APIService stays Available while its GET /apis/%s answers 2xx within %s; check the backend behind %s (kubectl -n %s logs <its pods>, its load)",
		a.GroupVersion(), a.GroupVersion(), AvailabilityCheckTimeout, a.Service, ns)
}
