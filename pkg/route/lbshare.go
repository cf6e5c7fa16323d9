package route

import (
	"fmt"
	"math"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// LBShare is what a client behind the load balancer of a load-balanced snapshot
// (snapshot.Cluster.LB) meets for one request: each outcome's probability, the share of
// samples of the server classes with that outcome. A class's share is split evenly among its
// members (a member's cell is its own decision), so the shares add up to 1.
type LBShare struct {
	Local       float64 `json:"local"`
	Proxied     float64 `json:"proxied"`
	NotFound    float64 `json:"notFound"`
	Unavailable float64 `json:"unavailable"`
	// Other is the share of servers whose outcome is unknown or that could not be evaluated.
	Other float64 `json:"other"`
	// Text is the table form: "67% local, 33% proxied (1 in 3), 0% fail".
	Text string `json:"text"`
}

// lbShare weighs a row's cells by their servers' shares of the samples. Nil when the snapshot
// was not sampled through a balancer.
func lbShare(snap *snapshot.Snapshot, cells []Cell) *LBShare {
	if snap.Cluster.LB == nil {
		return nil
	}
	s := &LBShare{}
	for _, c := range cells {
		srv := snap.Find(c.Server)
		if srv == nil || srv.LB == nil || srv.LB.EstimatedServers < 1 {
			continue
		}
		w := srv.LB.Share / float64(srv.LB.EstimatedServers)
		switch c.Outcome {
		case mvp.Local:
			s.Local += w
		case mvp.Proxied:
			s.Proxied += w
		case mvp.NotFound:
			s.NotFound += w
		case mvp.Unavailable:
			s.Unavailable += w
		default:
			s.Other += w
		}
	}
	s.Text = s.text()
	return s
}

func (s *LBShare) text() string {
	var parts []string
	if s.Local > 0 {
		parts = append(parts, percent(s.Local)+" local")
	}
	if s.Proxied > 0 {
		p := percent(s.Proxied) + " proxied"
		if k := oneIn(s.Proxied); k > 1 {
			p += fmt.Sprintf(" (1 in %d)", k)
		}
		parts = append(parts, p)
	}
	parts = append(parts, percent(s.NotFound+s.Unavailable)+" fail")
	if s.Other > 0 {
		parts = append(parts, percent(s.Other)+" unknown")
	}
	return strings.Join(parts, ", ")
}

// percent rounds to a whole percent, never to 0 or 100 a share that is not exactly that.
func percent(f float64) string {
	p := math.Round(f * 100)
	switch {
	case f > 0 && p == 0:
		return "<1%"
	case f < 1 && p == 100 && 1-f > 1e-9:
		return ">99%"
	}
	return fmt.Sprintf("%.0f%%", p)
}

// oneIn is k when f is 1/k to within 2 %, else 0.
func oneIn(f float64) int {
	if f <= 0 {
		return 0
	}
	k := math.Round(1 / f)
	if k >= 2 && math.Abs(f*k-1) < 0.02 {
		return int(k)
	}
	return 0
}
