package watch

import (
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Collect sends the state of the last read, then the counters.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.last
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labelValues(labels...)...)
	}
	if !r.Ended.IsZero() {
		gauge(descLastRead, unixSeconds(r.Ended))
		gauge(descLastDuration, r.Ended.Sub(r.Started).Seconds())
		gauge(descLastSuccess, boolValue(r.Err == nil))
	}
	if m.everRead {
		gauge(descLastOK, unixSeconds(m.lastOK))
	}
	if r.Snapshot != nil {
		m.collectServers(r, gauge)
		m.collectCells(r.State, gauge)
	}
	for _, a := range r.State.APIServices {
		gv := a.GroupVersion
		group, version := "", gv
		if i := strings.LastIndex(gv, "/"); i >= 0 {
			group, version = gv[:i], gv[i+1:]
		}
		gauge(descAPIService, boolValue(a.Available), a.Name, group, version)
	}
	m.collectReadiness(gauge)
	for _, c := range m.counters() {
		c.Collect(ch)
	}
}

func (m *Metrics) collectServers(r Read, gauge func(*prometheus.Desc, float64, ...string)) {
	atRisk := map[string]map[mvp.Outcome]int{}
	servers := r.Snapshot.Servers
	for i := range servers {
		atRisk[servers[i].Name] = map[mvp.Outcome]int{mvp.NotFound: 0, mvp.Unavailable: 0}
		collectServer(r, i, gauge)
	}
	for _, w := range r.State.Open {
		if atRisk[w.Server] == nil {
			atRisk[w.Server] = map[mvp.Outcome]int{mvp.NotFound: 0, mvp.Unavailable: 0}
		}
		atRisk[w.Server][w.Outcome]++
		g := gvrLabels(w.GVR)
		gauge(descWindowAge, w.Duration.Seconds(), w.Server, g.Group, g.Version, g.Resource, string(w.Outcome), string(w.Unavailable))
	}
	names := make([]string, 0, len(atRisk))
	for name := range atRisk {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, o := range []mvp.Outcome{mvp.NotFound, mvp.Unavailable} {
			gauge(descAtRisk, float64(atRisk[name][o]), name, string(o))
		}
	}
}

// collectServer exports the read's server i: up, its version, its gate and filter, and its
// peers, learned or not.
func collectServer(r Read, i int, gauge func(*prometheus.Desc, float64, ...string)) {
	s := &r.Snapshot.Servers[i]
	// Up only if this server answered the last read: a read that got nothing (the leases
	// could not be listed, every server gone) reached none, whatever the state it keeps.
	gauge(descServerUp, boolValue(r.Err == nil && s.Reachable), s.Name)
	gauge(descServerInfo, 1, s.Name, s.Version, s.EmulatedVersion)
	if !s.Reachable {
		// What a down server runs with is not read: the version's default would be an
		// assumption about a process that may come back otherwise (a restart with the
		// filter looked, mid-upgrade, like a server without it). Only a stated value is.
		if on, assumed := mvp.GateOn(s); !assumed && s.Version != "" {
			gauge(descGate, boolValue(on), s.Name, evidence(false))
		}
		if on, assumed := mvp.FilterInstalled(s); !assumed && s.Version != "" {
			gauge(descFilter, boolValue(on), s.Name, evidence(false))
		}
		return
	}
	on, assumed := mvp.GateOn(s)
	gauge(descGate, boolValue(on), s.Name, evidence(assumed))
	on, assumed = mvp.FilterInstalled(s)
	gauge(descFilter, boolValue(on), s.Name, evidence(assumed))
	peers, learned, known := learnedPeers(r.Snapshot.Servers, i)
	gauge(descPeers, float64(peers), s.Name)
	if known {
		gauge(descPeersLearned, float64(learned), s.Name)
	}
}

// learnedPeers counts server i's peers, and of them those whose every grouped GVR server i
// serves itself or lists in its learned view; known is false when no reachable peer could be
// compared with a learned view.
func learnedPeers(servers []snapshot.Server, i int) (peers, learned int, known bool) {
	s := &servers[i]
	view, hasView := mvp.LearnedView(s)
	listed := map[snapshot.GVR]bool{}
	for _, res := range view {
		listed[res.GVR()] = true
	}
	own := map[snapshot.GVR]bool{}
	for _, res := range s.Resources {
		own[res.GVR()] = true
	}
	for j := range servers {
		p := &servers[j]
		if j == i || mvp.PeerOf(s, p).Excluded() {
			continue
		}
		peers++
		if !hasView || !p.Reachable {
			continue
		}
		known = true
		all := true
		for _, res := range p.Resources {
			if g := res.GVR(); g.Group != "" && !own[g] && !listed[g] {
				all = false
				break
			}
		}
		if all {
			learned++
		}
	}
	return peers, learned, known
}

// collectCells exports the outcome of every GVR that is not local on every reachable server;
// an unreachable server's cells are not evaluated (mvpctl_apiserver_up says it is down).
func (m *Metrics) collectCells(st State, gauge func(*prometheus.Desc, float64, ...string)) {
	for i := 0; i < len(st.Cells); {
		j := i
		everywhere := true
		for ; j < len(st.Cells) && st.Cells[j].GVR == st.Cells[i].GVR; j++ {
			if c := st.Cells[j].Cell; c.Text != route.Unreachable && c.Outcome != mvp.Local {
				everywhere = false
			}
		}
		if !everywhere {
			for _, cs := range st.Cells[i:j] {
				if cs.Cell.Text == route.Unreachable || cs.Cell.Outcome == "" {
					continue
				}
				g := cs.GVR
				gauge(descOutcome, 1, cs.Cell.Server, g.Group, g.Version, g.Resource, string(cs.Cell.Outcome), string(cs.Cell.Unavailable))
			}
		}
		i = j
	}
}

// unixSeconds is t in seconds since the epoch, whole seconds exact.
func unixSeconds(t time.Time) float64 { return float64(t.Unix()) + float64(t.Nanosecond())/1e9 }

func evidence(assumed bool) string {
	if assumed {
		return "assumed"
	}
	return "observed"
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
