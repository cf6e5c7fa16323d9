package snapshot

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/report"
)

// TakenResult is the result of taking a snapshot: partial when the identity leases could not
// be listed (other apiservers, and down ones, are not known), when some apiserver could not be
// read (it is recorded with reachable: false), when kube-system/kubeadm-config exists but
// could not be read, or when the servers were sampled through a load balancer and their
// classes are estimated.
func (s *Snapshot) TakenResult() report.Result {
	if r, ok := s.leasesResult(); ok {
		return r
	}
	if s.Partial() {
		return report.Of(report.Partial, NotRead{Count: len(s.Unreachable()), Of: len(s.Servers)})
	}
	if in := s.Cluster.Installer; in != nil && in.KubeadmConfig == KubeadmConfigUnreadable {
		return report.Of(report.Partial, KubeadmConfigNotRead{Detail: in.Detail})
	}
	return s.lbResult()
}

// Result is the result of what is made from the snapshot (a routing table, an explanation):
// partial when its identity leases could not be listed or some server could not be read when
// it was taken, as the result does not cover them, or when its server classes are estimated
// through a load balancer.
func (s *Snapshot) Result() report.Result {
	if r, ok := s.leasesResult(); ok {
		return r
	}
	if names := s.Unreachable(); len(names) > 0 {
		return report.Of(report.Partial, UnreadWhenTaken{Names: names})
	}
	return s.lbResult()
}

// leasesResult is the caveat of a snapshot whose identity leases could not be listed: the
// servers it holds are those found otherwise, and it cannot say which others there are.
func (s *Snapshot) leasesResult() (report.Result, bool) {
	why := s.LeasesNotListed()
	if why == nil {
		return report.Result{}, false
	}
	return report.Of(report.Partial, *why), true
}

// LeasesNotListed is why the snapshot's identity leases could not be listed, or nil when they
// were (or the snapshot does not record it).
func (s *Snapshot) LeasesNotListed() *LeasesNotListed {
	if !s.Cluster.LeasesNotListed() {
		return nil
	}
	return &LeasesNotListed{Error: s.Cluster.IdentityLeases.Error}
}

// lbResult is the caveat of a snapshot sampled through a load balancer: its outcomes are per
// server class and estimated from samples unless every identity lease was seen and nothing
// is in doubt (LBSampling.Complete). An estimate is not a success.
func (s *Snapshot) lbResult() report.Result {
	if lb := s.Cluster.LB; lb != nil && !lb.Complete() {
		return report.Of(report.Partial, LBEstimated{LB: lb})
	}
	return report.Done()
}

// Unreachable are the names of the servers that could not be read, in snapshot order.
func (s *Snapshot) Unreachable() []string {
	var names []string
	for i := range s.Servers {
		if !s.Servers[i].Reachable {
			names = append(names, s.Servers[i].Name)
		}
	}
	return names
}

// NotRead is how many apiservers a snapshot could not read, of how many.
type NotRead struct{ Count, Of int }

func (r NotRead) String() string {
	return fmt.Sprintf("%d of %d apiservers could not be read (recorded with reachable: false)", r.Count, r.Of)
}

// KubeadmConfigNotRead: kube-system/kubeadm-config exists but could not be read.
type KubeadmConfigNotRead struct{ Detail string }

func (r KubeadmConfigNotRead) String() string {
	return fmt.Sprintf("kube-system/kubeadm-config could not be read (%s); the snapshot is written without it", r.Detail)
}

// UnreadWhenTaken are the servers a snapshot could not read when it was taken.
type UnreadWhenTaken struct{ Names []string }

func (r UnreadWhenTaken) String() string {
	return strings.Join(r.Names, ", ") + " could not be read when the snapshot was taken"
}

// LBEstimated: the snapshot was sampled through a load balancer and its server classes are
// estimated (LBSampling.Incomplete says why).
type LBEstimated struct{ LB *LBSampling }

func (r LBEstimated) String() string { return r.LB.Incomplete() }

// LeasesNotListed: the identity leases in kube-system could not be listed (Error says why), so
// the snapshot holds the servers found otherwise and cannot know the others.
type LeasesNotListed struct{ Error string }

func (r LeasesNotListed) String() string {
	why := r.Error
	if why == "" {
		why = "no reason recorded"
	}
	return "the identity leases in kube-system could not be listed (" + why + "): other apiservers, and any that are down, are not known"
}
