package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestThroughLB takes a snapshot of three real apiservers (two v1.36.3, one v1.37.1 with
// batch/v1 off) through a TCP round-robin balancer on loopback, with `snapshot --via-lb`, and
// one by dialling each server, and checks that the server classes found are the real servers'
// versions and configurations and that every GVR's outcome per class equals the direct-dial
// outcome of the servers in that class; the VIA-LB shares equal a client's odds behind a
// round-robin balancer (each server 1/3).
func TestThroughLB(t *testing.T) {
	harness.SkipIfUnsupported(t)
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_37, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
	)
	var backends []string
	for _, s := range cp.Servers() {
		backends = append(backends, strings.TrimPrefix(s.URL, "https://"))
	}
	lb := harness.StartBalancer(t, backends...)
	lbKubeconfig, err := cp.WriteKubeconfigFor(lb.URL, "through-lb")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	const samples = 30
	before := lb.Conns()
	viaLB, r := mvpctlSnapshot(t, filepath.Join(dir, "lb.json"), []int{0}, "--kubeconfig", lbKubeconfig, "--via-lb", "--lb-samples", fmt.Sprint(samples))
	t.Logf("%s", r)
	after := lb.Conns()
	direct, _ := mvpctlSnapshot(t, filepath.Join(dir, "direct.json"), []int{0}, "--kubeconfig", cp.Server("kas-a").Kubeconfig)

	// The sampling: every sample answered, every live lease was seen, confidence 1.
	info := viaLB.Cluster.LB
	if info == nil {
		t.Fatalf("the --via-lb snapshot has no cluster.lb")
	}
	if info.Samples != samples || info.Answered != samples || len(info.Failed) != 0 || info.Leases != 3 || info.LeasesSeen != 3 || info.Classes != 2 ||
		info.Confidence == nil || *info.Confidence != 1 || len(info.Doubts) != 0 {
		t.Errorf("cluster.lb = %+v, want 30 of 30 answered, 3 leases seen, 2 classes, confidence 1, no doubt", *info)
	}
	if !strings.HasPrefix(string(r.Stderr), "warning: sampled through the load balancer "+lb.URL) {
		t.Errorf("stderr does not start with the load-balancer line:\n%s", r.Stderr)
	}
	t.Logf("balancer connections during the snapshot: before %v, after %v", before, after)

	// Classes against the real servers: which server each member is (its lease ID), and its
	// configuration as the direct snapshot recorded it.
	byID := map[string]*snapshot.Server{}
	for i := range direct.Servers {
		byID[direct.Servers[i].ID] = &direct.Servers[i]
	}
	classOf := map[string]string{} // real server name → class
	classSamples := map[string]int{}
	var table strings.Builder
	fmt.Fprintf(&table, "%-10s %-8s %-8s %-8s %-7s %-6s %s\n", "MEMBER", "CLASS", "SERVER", "VERSION", "SAMPLES", "SHARE", "FILTER/PEER-AGG")
	for _, m := range viaLB.Servers {
		if m.LB == nil || !m.LB.Identified {
			t.Errorf("member %s is not identified by a lease: %+v", m.Name, m.LB)
			continue
		}
		real := byID[m.ID]
		if real == nil {
			t.Errorf("member %s has ID %s, which no directly read server has", m.Name, m.ID)
			continue
		}
		classOf[real.Name] = m.LB.Class
		classSamples[m.LB.Class] = m.LB.Samples
		fmt.Fprintf(&table, "%-10s %-8s %-8s %-8s %-7d %-6.3f %s/%s\n", m.Name, m.LB.Class, real.Name, m.Version, m.LB.Samples, m.LB.Share,
			tri(m.PeerProxy.FilterInstalled), tri(m.PeerProxy.PeerAggregatedDiscovery))
		if m.Version != real.Version || m.EmulatedVersion != real.EmulatedVersion || m.DiscoveryFormat != real.DiscoveryFormat {
			t.Errorf("member %s (%s): version %s %s %s, direct %s %s %s", m.Name, real.Name, m.Version, m.EmulatedVersion, m.DiscoveryFormat, real.Version, real.EmulatedVersion, real.DiscoveryFormat)
		}
		for _, f := range []struct {
			name      string
			lb, dialt *bool
		}{
			{"gateEnabled", m.PeerProxy.GateEnabled, real.PeerProxy.GateEnabled},
			{"filterInstalled", m.PeerProxy.FilterInstalled, real.PeerProxy.FilterInstalled},
			{"peerAggregatedDiscovery", m.PeerProxy.PeerAggregatedDiscovery, real.PeerProxy.PeerAggregatedDiscovery},
			{"endpointResolvable", m.PeerProxy.EndpointResolvable, real.PeerProxy.EndpointResolvable},
		} {
			if tri(f.lb) != tri(f.dialt) {
				t.Errorf("member %s (%s): peerProxy.%s %s through the balancer, %s dialled", m.Name, real.Name, f.name, tri(f.lb), tri(f.dialt))
			}
		}
		if m.APIs == nil || real.APIs == nil || m.APIs.ETag != real.APIs.ETag || m.CoreAPI.ETag != real.CoreAPI.ETag {
			t.Errorf("member %s (%s): discovery ETags differ from the server's own", m.Name, real.Name)
		}
	}
	t.Logf("classes through %s:\n%s", lb.URL, table.String())
	if classOf["kas-a"] == "" || classOf["kas-a"] != classOf["kas-b"] || classOf["kas-c"] == "" || classOf["kas-c"] == classOf["kas-a"] {
		t.Errorf("classes %v: want kas-a and kas-b in one class, kas-c in another", classOf)
	}
	// Round robin over three backends: 30 consecutive connections give each 10; the v1.36
	// class holds two of them.
	if classSamples[classOf["kas-c"]] != samples/3 || classSamples[classOf["kas-a"]] != 2*samples/3 {
		t.Errorf("samples per class %v: want %d for kas-c's class and %d for kas-a/kas-b's", classSamples, samples/3, 2*samples/3)
	}

	// Routes: per class the direct outcome; the VIA-LB share is a round-robin client's odds.
	lbTable := routesJSON(t, viaLB.Path)
	directTable := routesJSON(t, direct.Path)
	directRows := map[string]route.Row{}
	for _, row := range directTable.Rows {
		directRows[row.Name] = row
	}
	if len(lbTable.Rows) != len(directTable.Rows) {
		t.Errorf("%d GVRs through the balancer, %d dialled", len(lbTable.Rows), len(directTable.Rows))
	}
	nameOfID := map[string]string{}
	for _, s := range direct.Servers {
		nameOfID[s.ID] = s.Name
	}
	memberID := map[string]string{}
	for _, m := range viaLB.Servers {
		memberID[m.Name] = m.ID
	}
	compared, proxiedRows := 0, 0
	var shares strings.Builder
	for _, row := range lbTable.Rows {
		d, ok := directRows[row.Name]
		if !ok {
			t.Errorf("%s: only through the balancer", row.Name)
			continue
		}
		directCell := map[string]route.Cell{}
		outcomes := map[string]int{}
		for _, c := range d.Cells {
			directCell[c.Server] = c
			outcomes[string(c.Outcome)]++
		}
		for _, c := range row.Cells {
			real := nameOfID[memberID[c.Server]]
			dc := directCell[real]
			compared++
			if c.Outcome != dc.Outcome || fmt.Sprint(derefInt(c.Status)) != fmt.Sprint(derefInt(dc.Status)) {
				t.Errorf("%s: %s (%s) %s %v through the balancer, %s %v dialled", row.Name, c.Server, real, c.Outcome, derefInt(c.Status), dc.Outcome, derefInt(dc.Status))
			}
			if c.Outcome == "proxied" && len(c.Peers) != len(dc.Peers) {
				t.Errorf("%s: %s proxies to %d candidate(s), %s to %d", row.Name, c.Server, len(c.Peers), real, len(dc.Peers))
			}
		}
		if row.ThroughLB == nil {
			t.Errorf("%s: no throughLB share", row.Name)
			continue
		}
		n := float64(len(d.Cells))
		want := map[string]float64{"local": float64(outcomes["local"]) / n, "proxied": float64(outcomes["proxied"]) / n,
			"fail": float64(outcomes["not-found"]+outcomes["unavailable"]) / n}
		got := map[string]float64{"local": row.ThroughLB.Local, "proxied": row.ThroughLB.Proxied, "fail": row.ThroughLB.NotFound + row.ThroughLB.Unavailable}
		for k := range want {
			if math.Abs(want[k]-got[k]) > 1e-9 {
				t.Errorf("%s: %s share %.4f through the balancer, %.4f of the dialled servers", row.Name, k, got[k], want[k])
			}
		}
		if row.ThroughLB.Proxied > 0 {
			proxiedRows++
			fmt.Fprintf(&shares, "%-45s %s\n", row.Name, row.ThroughLB.Text)
		}
	}
	t.Logf("compared %d cells; GVRs proxied through the balancer:\n%s", compared, shares.String())
	if proxiedRows == 0 {
		t.Errorf("no GVR is proxied on any class: the comparison did not exercise proxying")
	}
	if jobs := lbRow(lbTable, "batch/v1/jobs"); jobs == nil || jobs.ThroughLB == nil || jobs.ThroughLB.Text != "67% local, 33% proxied (1 in 3), 0% fail" {
		t.Errorf("batch/v1/jobs through the balancer: %+v, want 67%% local, 33%% proxied (1 in 3), 0%% fail", jobs)
	}

	// The table prints the share; explain and preflight say first that outcomes are per class.
	tbl := runMvpctl(t, "routes", "--snapshot", viaLB.Path)
	if tbl.Exit != 0 || !strings.Contains(string(tbl.Stdout), "VIA-LB") || !strings.Contains(string(tbl.Stdout), "67% local, 33% proxied (1 in 3), 0% fail") {
		t.Errorf("%s\nstdout:\n%s\nwant exit 0 and the VIA-LB column", tbl, tbl.Stdout)
	}
	t.Logf("routes --snapshot lb.json:\n%s", tbl.Stdout)
	for _, args := range [][]string{
		{"explain", "--snapshot", viaLB.Path, "GET", "/apis/batch/v1/namespaces/default/jobs"},
		{"preflight", "--snapshot", viaLB.Path, "--to", "1.37"},
		{"simulate", "upgrade", "--snapshot", viaLB.Path, "--to", "1.37"},
	} {
		res := runMvpctl(t, args...)
		if !strings.HasPrefix(string(res.Stderr), "warning: sampled through the load balancer "+lb.URL+": outcomes are per server class") {
			t.Errorf("%s\nwant the load-balancer line first on stderr", res)
		}
		t.Logf("%s", res)
	}
	// preflight finds the same checks on both snapshots (subjects are named differently).
	lbChecks, directChecks := preflightChecks(t, viaLB.Path), preflightChecks(t, direct.Path)
	t.Logf("preflight --to 1.37 findings: through the balancer %v, dialled %v", lbChecks, directChecks)
	if strings.Join(lbChecks, ",") != strings.Join(directChecks, ",") {
		t.Errorf("preflight findings through the balancer %v, dialled %v", lbChecks, directChecks)
	}
	// probe must reach the apiserver it tests: a balancer cannot promise that.
	pr := runMvpctl(t, "probe", "--snapshot", viaLB.Path, "--kubeconfig", lbKubeconfig)
	if pr.Exit != 1 || !strings.Contains(string(pr.Stderr), "this snapshot was sampled through the load balancer") {
		t.Errorf("%s\nwant exit 1 and the refusal", pr)
	}
}

// TestThroughLBAutomatic: the identity leases advertise addresses where nothing listens
// (127.0.0.2), so a plain `mvpctl snapshot` through the balancer cannot dial any apiserver by
// itself; it says so and samples through the balancer, and every lease is still named by a
// sample (/api serverAddressByClientCIDRs is the advertised address).
func TestThroughLBAutomatic(t *testing.T) {
	harness.SkipIfUnsupported(t)
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, UnreachableAdvertise: true},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, UnreachableAdvertise: true},
	)
	var backends []string
	for _, s := range cp.Servers() {
		backends = append(backends, strings.TrimPrefix(s.URL, "https://"))
	}
	lb := harness.StartBalancer(t, backends...)
	kubeconfig, err := cp.WriteKubeconfigFor(lb.URL, "through-lb")
	if err != nil {
		t.Fatal(err)
	}
	snap, r := mvpctlSnapshot(t, filepath.Join(t.TempDir(), "auto.json"), []int{0}, "--kubeconfig", kubeconfig, "--lb-samples", "10")
	t.Logf("%s", r)
	if !strings.Contains(string(r.Stderr), "warning: none of the 2 identity leases' peer-advertise addresses") || !strings.Contains(string(r.Stderr), "as --via-lb does") {
		t.Errorf("no warning about the switch to sampling:\n%s", r.Stderr)
	}
	info := snap.Cluster.LB
	if info == nil || info.Samples != 10 || info.Answered != 10 || info.Leases != 2 || info.LeasesSeen != 2 || info.Classes != 1 || !info.Complete() {
		t.Fatalf("cluster.lb = %+v, want 10 answered samples, 2 leases seen, 1 class", info)
	}
	ids := map[string]bool{}
	for _, s := range snap.Servers {
		ids[s.ID] = true
	}
	for _, s := range cp.Servers() {
		if !ids[s.LeaseID] {
			t.Errorf("%s (lease %s) is not a member: %v", s.Name, s.LeaseID, snap.ServerNames())
		}
	}
}

// preflightChecks are the check IDs and severities of preflight --to 1.37's findings, sorted.
func preflightChecks(t *testing.T, snapPath string) []string {
	t.Helper()
	r := runMvpctl(t, "preflight", "--snapshot", snapPath, "--to", "1.37", "-o", "json")
	var rep struct {
		Findings []struct{ Check, Severity string }
	}
	if err := json.Unmarshal(r.Stdout, &rep); err != nil {
		t.Fatalf("%s\npreflight -o json: %v", r, err)
	}
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Check+"/"+f.Severity)
	}
	sort.Strings(out)
	return out
}

func lbRow(t route.RoutingTable, name string) *route.Row {
	for i := range t.Rows {
		if t.Rows[i].Name == name {
			return &t.Rows[i]
		}
	}
	return nil
}

func routesJSON(t *testing.T, snapPath string) route.RoutingTable {
	t.Helper()
	r := runMvpctl(t, "routes", "--all", "-o", "json", "--snapshot", snapPath)
	if r.Exit != 0 {
		t.Fatalf("%s\nwant exit 0", r)
	}
	var table route.RoutingTable
	if err := json.Unmarshal(r.Stdout, &table); err != nil {
		t.Fatalf("routes -o json: %v", err)
	}
	sort.Slice(table.Rows, func(i, j int) bool { return table.Rows[i].Name < table.Rows[j].Name })
	return table
}

func derefInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func tri(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "on"
	}
	return "off"
}
