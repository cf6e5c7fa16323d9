package discover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/redact"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// How a server was found (Server.FoundBy).
const (
	FoundByLease    = "lease"
	FoundByEndpoint = "endpoint"
	FoundByContext  = "context"
)

// binaryVersion is the server's version as the rules take it (the minor is what they read).
func (r *result) binaryVersion() snapshot.Version { return snapshot.Version{Major: 1, Minor: r.minor} }

// target is one server to read.
type target struct {
	foundBy string
	base    string
	cfg     *rest.Config
	// context is the name of the kubeconfig context whose credentials cfg holds ("" when
	// unknown: a config given directly).
	context string
	// serverNames are the TLS server names to try, in order, when the certificate does not
	// name the one before; empty means cfg's own.
	serverNames []string
	lease       *identityLease
	// matchedBy says how lease was attached ("" when the lease found the server itself).
	matchedBy string
	// skip, when set, is why the server is recorded without being contacted.
	skip string
	// dialErr, when set, is why the server is not contacted again: it did not answer an
	// earlier request (the lease list) within the timeout.
	dialErr error
}

// result is what reading one target gave.
type result struct {
	t      *target
	client *serverClient // nil when the server could not be reached
	err    error         // why the server is unreachable (or partly unread)

	version  string
	emulated string
	minor    int // -1 when unknown (dev build)

	doc             *discoveryDoc
	peerAgg         []snapshot.Resource
	peerAggDoc      *snapshot.DiscoveryDocument
	peerAggFetched  bool
	peerAggErr      string
	readyz          readyz
	serverAddresses []string
	notes           []string // evidence beyond readyz
	warnings        []string
	// ambiguousLease: one of several gate-off leases is this server's, but not which.
	ambiguousLease bool
	// Peer-learning evidence (peerlearning.go): nil when not read.
	syncErrors         map[string]float64
	requests           *snapshot.RequestCounts // client evidence (requestcounts.go)
	requestsRefused    bool                    // read, but a value is not a count
	syncErrorsErr      string
	advertiseReachable *bool
	advertiseErr       string
}

// fetchServer reads one server within timeout. Only the first failure that leaves the
// snapshot of the server incomplete (version or discovery) makes it unreachable; readyz and
// the peer-aggregated document are evidence, and their failure is noted.
func fetchServer(ctx context.Context, t *target, timeout time.Duration, red *redact.Redactor) *result {
	r := &result{t: t, minor: -1}
	if t.dialErr != nil {
		r.err = t.dialErr
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	info, c, name, err := connect(ctx, t, timeout, red)
	if err != nil {
		r.err = err
		return r
	}
	r.client = c
	if len(t.serverNames) > 1 && name != t.serverNames[0] {
		r.notes = append(r.notes, fmt.Sprintf("TLS server name %s used: the serving certificate does not name %s", name, t.serverNames[0]))
	}
	if err := r.setVersion(c, info); err != nil {
		r.err = err
		return r
	}
	r.readyz = fetchReadyz(ctx, c)
	v, verr := snapshot.ParseVersion(r.version)
	r.requests, r.syncErrors, r.syncErrorsErr, r.requestsRefused = fetchMetrics(ctx, c, verr == nil && mvp.HasPeerProxyMetrics(v))
	if verr != nil || !mvp.HasPeerProxyMetrics(v) {
		r.syncErrorsErr = "" // not asked: the version has no such counter
	}

	doc, err := fetchDiscovery(ctx, c)
	if err != nil {
		r.err = err
		return r
	}
	r.doc = doc
	if len(doc.invalid) > 0 {
		r.warnings = append(r.warnings, fmt.Sprintf("left out %d invalid discovery entries: %s", len(doc.invalid), strings.Join(doc.invalid[:min(3, len(doc.invalid))], ", ")))
	}
	if doc.invalidDoc != "" {
		r.warnings = append(r.warnings, doc.invalidDoc)
	}
	for _, gv := range doc.stale {
		r.warnings = append(r.warnings, fmt.Sprintf("group version %s is Stale in the server's own discovery (its aggregated API server did not answer): not counted as a resource it serves; its APIService is recorded", gv))
	}

	if r.minor >= 0 && mvp.CanAggregateDiscovery(r.binaryVersion()) && doc.format == "v2" {
		rs, d, err := fetchPeerAggregated(ctx, c)
		if err != nil {
			r.peerAggErr = errMsg(err)
		} else {
			if err := d.Check(); err != nil {
				// The resources are sanitized; a garbled document is not recorded.
				r.warnings = append(r.warnings, fmt.Sprintf("default /apis document not recorded: %s", err))
				d = nil
			}
			r.peerAgg, r.peerAggDoc, r.peerAggFetched = rs, d, true
		}
	}

	switch {
	case doc.format == snapshot.DiscoveryLegacy:
		r.serverAddresses = doc.serverAddresses
	case t.lease == nil:
		// Only needed to find this server's identity lease; its failure costs the identity only.
		if addrs, err := fetchServerAddresses(ctx, c); err == nil {
			r.serverAddresses = addrs
		}
	}
	return r
}

// connect fetches /version, trying the target's TLS server names in turn while the
// certificate names another host: a node's serving certificate rarely names its own IP, but
// always names kubernetes.default.svc (peers verify it with that name).
func connect(ctx context.Context, t *target, timeout time.Duration, red *redact.Redactor) (*version.Info, *serverClient, string, error) {
	names := t.serverNames
	if len(names) == 0 {
		names = []string{""}
	}
	var lastErr error
	for i, name := range names {
		c, err := newServerClient(t.cfg, t.base, name, timeout, red)
		if err != nil {
			return nil, nil, "", err
		}
		var info version.Info
		_, err = c.getJSON(ctx, "/version", "application/json", &info)
		if err == nil {
			return &info, c, name, nil
		}
		lastErr = err
		var e *Error
		if !errors.As(err, &e) || e.Kind != apiclient.KindTLSHostname || i == len(names)-1 {
			break
		}
	}
	return nil, nil, "", lastErr
}

func (r *result) setVersion(c *serverClient, info *version.Info) error {
	if info.GitVersion == "" {
		return apiclient.InvalidDoc(c.base, "/version", "no gitVersion — is this a kube-apiserver?")
	}
	v, err := snapshot.ParseVersion(info.GitVersion)
	if err != nil {
		return apiclient.InvalidDoc(c.base, "/version", fmt.Sprintf("gitVersion %q is not a Kubernetes version", info.GitVersion))
	}
	r.version = info.GitVersion
	if v.Major >= 1 {
		r.minor = v.Minor
	} else {
		r.warnings = append(r.warnings, fmt.Sprintf("reports version %s: built without version information, so its routing era is unknown", info.GitVersion))
	}
	if info.EmulationMajor != "" && info.EmulationMinor != "" {
		r.emulated = info.EmulationMajor + "." + info.EmulationMinor
	}
	return nil
}
