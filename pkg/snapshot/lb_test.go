package snapshot

import (
	"strings"
	"testing"
)

func lbSnapshot() *Snapshot {
	one := 1.0
	s := New()
	s.Cluster.LB = &LBSampling{Address: "https://10.0.0.100:6443", Samples: 30, Answered: 30, LeasesRead: true, Leases: 2, LeasesSeen: 2, Classes: 1, Confidence: &one, Model: "observed"}
	s.Servers = []Server{
		{Name: "class-1-1", ID: "a", Version: "v1.36.3", Reachable: true, LB: &ServerLB{Class: "class-1", Samples: 30, Share: 1, EstimatedServers: 2, Identified: true}},
		{Name: "class-1-2", ID: "b", Version: "v1.36.3", Reachable: true, LB: &ServerLB{Class: "class-1", Samples: 30, Share: 1, EstimatedServers: 2, Identified: true}},
	}
	return s
}

func TestValidateLB(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Snapshot)
		want   string // "" = valid
	}{
		{"valid", func(*Snapshot) {}, ""},
		{"server lb without cluster lb", func(s *Snapshot) { s.Cluster.LB = nil }, "servers[0] (class-1-1).lb: set, but cluster.lb is not"},
		{"no class", func(s *Snapshot) { s.Servers[1].LB.Class = "" }, "servers[1] (class-1-2).lb.class: must be set"},
		{"share above 1", func(s *Snapshot) { s.Servers[0].LB.Share = 1.5 }, "servers[0] (class-1-1).lb.share: 1.5 is not a fraction"},
		{"more class samples than answered", func(s *Snapshot) { s.Servers[0].LB.Samples = 31 }, "servers[0] (class-1-1).lb.samples: 31, but 30 samples answered"},
		{"answered above samples", func(s *Snapshot) { s.Cluster.LB.Answered = 31 }, "cluster.lb: answered 31 of 30 samples"},
		{"confidence not a probability", func(s *Snapshot) { c := 1.2; s.Cluster.LB.Confidence = &c }, "cluster.lb.confidence: 1.2 is not a probability"},
		{"control character in a doubt", func(s *Snapshot) { s.Cluster.LB.Doubts = []string{"x\x1b[2J"} }, "cluster.lb.doubts[0]"},
	} {
		s := lbSnapshot()
		tc.change(s)
		err := s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLBComplete(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*LBSampling)
		want   bool
	}{
		{"every lease seen", func(*LBSampling) {}, true},
		{"a lease not seen", func(l *LBSampling) { l.LeasesSeen = 1 }, false},
		{"a doubt", func(l *LBSampling) { l.Doubts = []string{"2 of 30 samples failed"} }, false},
		{"leases not read", func(l *LBSampling) { l.LeasesRead, l.Leases, l.LeasesSeen = false, 0, 0 }, false},
	} {
		lb := *lbSnapshot().Cluster.LB
		tc.change(&lb)
		if got := lb.Complete(); got != tc.want {
			t.Errorf("%s: Complete() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFormatConfidence(t *testing.T) {
	for _, tc := range []struct {
		c    float64
		want string
	}{{1, "1"}, {0.9999843, "0.999984"}, {0.9999999, ">0.999999"}, {0.5, "0.5"}, {0, "0"}, {0.4631, "0.4631"}} {
		if got := FormatConfidence(tc.c); got != tc.want {
			t.Errorf("FormatConfidence(%v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}
