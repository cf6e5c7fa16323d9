// Package basis holds what a result rests on besides observation — the provisional profiles
// it used, what it assumed, what the installer stated, and what could not be read — as one
// typed value, RestsOn. It is decided once where the facts arise (OfSnapshot, when a snapshot
// is read; simulate.Run adds the profiles and assumptions; the gate adds its own reads) and
// carried by the results made from it: a snapshot's, the routes', a simulation's, the gate's.
// Each caveat is worded in one place, wording.go.
package basis

import (
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// RestsOn is what a result rests on besides what was observed and read whole. Its fields
// are those of the reports that carry it (a simulation, a preflight report embed it): the
// JSON names are theirs.
type RestsOn struct {
	// Provisional are the profiles used that were derived from a release's published
	// modules, not recorded: to be read first.
	Provisional []Provisional `json:"provisional,omitempty"`
	// Stated is the configuration the installer states rather than observed, one line a
	// fact with the servers it holds for.
	Stated []string `json:"stated,omitempty"`
	// Assumptions are what was assumed rather than observed, one line each.
	Assumptions []string `json:"assumptions,omitempty"`
	// Reads are what could not be read whole.
	Reads Reads `json:"-"`
}

// Provisional is a profile derived from a release's published modules, not recorded from its
// kube-apiserver (snapshot.Provisional): a result that rests on one is not a success.
type Provisional struct {
	Version string `json:"version"`
	snapshot.Provisional
}

// Reads are what of a result's input could not be read whole.
type Reads struct {
	// Leases: the identity leases could not be listed, so other apiservers are not known.
	Leases *LeasesNotListed
	// Unread are the servers not read, in snapshot order, of Servers in all.
	Unread  []string
	Servers int
	// KubeadmConfig: kube-system/kubeadm-config exists but could not be read.
	KubeadmConfig *KubeadmConfigNotRead
	// LB is the sampling through a load balancer when its server classes are estimated.
	LB *snapshot.LBSampling
	// Prometheus is the client evidence of a Prometheus that could not be read.
	Prometheus *snapshot.PrometheusEvidence
	// Also are further inputs read in part, each a typed value of the package that read it
	// (client evidence cut at its budget, a manifest that does not parse, the CRDs not listed).
	Also []PartialRead
}

// A PartialRead is a further input read in part (Reads.Also): String says, in one line, what
// of it was not read.
type PartialRead interface{ String() string }

// ReadLine is a partial read known by its line only: a verdict read back from its JSON.
type ReadLine string

func (l ReadLine) String() string { return string(l) }

// OfSnapshot is what a result made from s rests on as s records it: the identity leases not
// listed, the servers not read, kubeadm-config not read, an estimated sampling, a Prometheus
// not read. This is the one place a snapshot's reads are judged.
func OfSnapshot(s *snapshot.Snapshot) RestsOn {
	r := Reads{Servers: len(s.Servers), Leases: LeasesOf(s)}
	for i := range s.Servers {
		if !s.Servers[i].Reachable {
			r.Unread = append(r.Unread, s.Servers[i].Name)
		}
	}
	if in := s.Cluster.Installer; in != nil && in.KubeadmConfig == snapshot.KubeadmConfigUnreadable {
		r.KubeadmConfig = &KubeadmConfigNotRead{Detail: in.Detail}
	}
	if lb := s.Cluster.LB; lb != nil && !lb.Complete() {
		r.LB = lb
	}
	if pe := s.Prometheus; pe != nil && pe.Error != "" {
		r.Prometheus = pe
	}
	return RestsOn{Reads: r}
}

// LeasesOf is why s's identity leases could not be listed, or nil when they were (or s does
// not record it).
func LeasesOf(s *snapshot.Snapshot) *LeasesNotListed {
	if !s.Cluster.LeasesNotListed() {
		return nil
	}
	return &LeasesNotListed{Error: s.Cluster.IdentityLeases.Error}
}

// WithReads is r with further reads not whole.
func (r RestsOn) WithReads(also ...PartialRead) RestsOn {
	r.Reads.Also = append(r.Reads.Also[:len(r.Reads.Also):len(r.Reads.Also)], also...)
	return r
}

// TakenResult is the result of taking a snapshot: partial when the identity leases could not
// be listed (other apiservers, and down ones, are not known), when some apiserver could not be
// read (it is recorded with reachable: false), when kube-system/kubeadm-config exists but
// could not be read, or when the servers were sampled through a load balancer and their
// classes are estimated. The first of these is the reason.
func (r RestsOn) TakenResult() report.Result {
	rd := r.Reads
	switch {
	case rd.Leases != nil:
		return report.Of(report.Partial, *rd.Leases)
	case len(rd.Unread) > 0:
		return report.Of(report.Partial, NotRead{Count: len(rd.Unread), Of: rd.Servers})
	case rd.KubeadmConfig != nil:
		return report.Of(report.Partial, *rd.KubeadmConfig)
	case rd.LB != nil:
		return report.Of(report.Partial, LBEstimated{LB: rd.LB})
	}
	return report.Done()
}

// MadeResult is the result of what is made from a snapshot (a routing table, an explanation):
// partial when its identity leases could not be listed or some server could not be read when
// it was taken, as the result does not cover them, or when its server classes are estimated
// through a load balancer. kubeadm-config not read leaves what is made whole: the routing
// does not read it.
func (r RestsOn) MadeResult() report.Result {
	rd := r.Reads
	switch {
	case rd.Leases != nil:
		return report.Of(report.Partial, *rd.Leases)
	case len(rd.Unread) > 0:
		return report.Of(report.Partial, UnreadWhenTaken{Names: rd.Unread})
	case rd.LB != nil:
		return report.Of(report.Partial, LBEstimated{LB: rd.LB})
	}
	return report.Done()
}

// SimulationResult is a simulation's result: with warnings when it rests on a provisional
// profile or on assumptions, or on a start whose identity leases could not be listed, in which
// some apiserver could not be read, or whose server classes are estimated through a load
// balancer. What the installer states is no caveat (it is the cluster's word), nor are the
// reads a simulation does not use (kubeadm-config, Prometheus, the gate's own reads).
func (r RestsOn) SimulationResult() report.Result {
	rd := r.Reads
	if len(r.Provisional) == 0 && len(r.Assumptions) == 0 && rd.Leases == nil && len(rd.Unread) == 0 && rd.LB == nil {
		return report.Done()
	}
	return report.Of(report.Warnings, SimulationCaveats{RestsOn: r})
}

// GateReads are the reads the gate (preflight) counts as partial, one line each: the identity
// leases not listed, each apiserver not read, an estimated sampling, a Prometheus not read, and
// the further reads of Reads.Also. kubeadm-config not read is not among them.
func (r RestsOn) GateReads() []string {
	rd := r.Reads
	var out []string
	if rd.Leases != nil {
		out = append(out, rd.Leases.String())
	}
	for _, name := range rd.Unread {
		out = append(out, serverNotRead(name))
	}
	if rd.LB != nil {
		out = append(out, LBEstimated{LB: rd.LB}.String())
	}
	if rd.Prometheus != nil {
		out = append(out, prometheusNotRead(rd.Prometheus))
	}
	for _, a := range rd.Also {
		out = append(out, a.String())
	}
	return out
}
