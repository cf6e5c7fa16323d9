package discover

import (
	"context"
	"net/url"
	"sort"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// What identifies a kube-apiserver's identity lease (docs/behaviour.md §4.2).
const (
	leaseNamespace        = "kube-system"
	identityLabel         = "apiserver.kubernetes.io/identity"
	identityLabelValue    = "kube-apiserver"
	hostnameLabel         = "kubernetes.io/hostname"
	peerAddressAnnotation = "kubernetes.io/peer-advertise-address"
)

// identityLease is what discovery uses of one identity lease.
type identityLease struct {
	name     string // apiserver-<hash>: the server ID
	hostname string // kubernetes.io/hostname label
	address  string // kubernetes.io/peer-advertise-address (ip:port), "" when the gate is off
	holder   string
	renew    *time.Time
	created  *time.Time
}

func (l *identityLease) snapshotLease() *snapshot.Lease {
	return &snapshot.Lease{Name: l.name, HolderIdentity: l.holder, RenewTime: l.renew, Created: l.created}
}

// leasesPath lists only kube-apiserver identity leases: other components' leases in
// kube-system do not carry the label.
func leasesPath() string {
	q := url.Values{"labelSelector": {identityLabel + "=" + identityLabelValue}}
	return "/apis/coordination.k8s.io/v1/namespaces/" + leaseNamespace + "/leases?" + q.Encode()
}

// listIdentityLeases reads the identity leases through c, sorted by name.
func listIdentityLeases(ctx context.Context, c *serverClient) ([]identityLease, error) {
	var list coordinationv1.LeaseList
	if err := getLeaseList(ctx, c, &list); err != nil {
		return nil, err
	}
	if list.Kind != "" && list.Kind != "LeaseList" {
		return nil, apiclient.InvalidDoc(c.base, leasesPath(), "got a "+list.Kind+", want a LeaseList")
	}
	out := make([]identityLease, 0, len(list.Items))
	for i := range list.Items {
		l := &list.Items[i]
		il := identityLease{
			name:     l.Name,
			hostname: l.Labels[hostnameLabel],
			address:  l.Annotations[peerAddressAnnotation],
		}
		if l.Spec.HolderIdentity != nil {
			il.holder = *l.Spec.HolderIdentity
		}
		if l.Spec.RenewTime != nil {
			t := l.Spec.RenewTime.UTC()
			il.renew = &t
		}
		if !l.CreationTimestamp.IsZero() {
			t := l.CreationTimestamp.UTC()
			il.created = &t
		}
		out = append(out, il)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// getLeaseList is getJSON of the lease list, bounded at MaxLeaseAnswer: a larger answer is
// refused, not read whole.
func getLeaseList(ctx context.Context, c *serverClient, list *coordinationv1.LeaseList) error {
	path := leasesPath()
	resp, err := c.Get(apiclient.WithMaxBody(ctx, MaxLeaseAnswer), path, "application/json")
	switch {
	case err != nil:
		return err
	case resp.Truncated:
		return apiclient.InvalidDoc(c.base, path, leaseListTooLarge)
	case resp.Cut != nil:
		return apiclient.DecodeError(c.base, path, len(resp.Body), resp.Cut)
	}
	if err := c.checkJSON(path, resp); err != nil {
		return err
	}
	return c.DecodeJSON(path, resp.Body, list)
}
