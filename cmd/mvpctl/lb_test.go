package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

const lbEstimated = "testdata/snapshots/lb-estimated.yaml"

// lbVariant writes lbEstimated changed by change to a temp file.
func lbVariant(t *testing.T, change func(*snapshot.Snapshot)) string {
	t.Helper()
	snap, err := snapshot.LoadFile(lbEstimated)
	if err != nil {
		t.Fatal(err)
	}
	change(snap)
	path := filepath.Join(t.TempDir(), "lb.yaml")
	if err := snap.WriteFile(path, false); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLBSnapshot: a snapshot sampled through a load balancer is routed per server class, the
// routes table adds each GVR's share for a client behind the balancer, and every command says
// first that its outcomes are per class and estimated from samples. Only a sampling that saw
// every identity lease with nothing in doubt exits 0.
func TestLBSnapshot(t *testing.T) {
	complete := lbVariant(t, func(s *snapshot.Snapshot) {
		s.Cluster.LB.LeasesSeen = 3
		s.Servers[1].ID, s.Servers[1].Hostname, s.Servers[1].PeerAdvertiseAddress = "apiserver-bbbbbbbbbbbbbbbbbbbbbbbbbb", "kas-b", "10.0.0.2:6443"
		s.Servers[1].LB.Identified = true
		one := 1.0
		s.Cluster.LB.Confidence = &one
	})
	doubtful := lbVariant(t, func(s *snapshot.Snapshot) {
		c := 0.4631
		s.Cluster.LB.Confidence = &c
		s.Cluster.LB.Doubts = []string{"confidence 0.4631 that no server class was missed is below 0.99: take more samples (--lb-samples)"}
	})
	for _, tc := range []struct {
		name   string
		golden string
		args   []string
		code   int
		stderr []string // lines stderr must start with, in order
	}{
		{"routes", "routes-lb.txt", []string{"routes", "--snapshot", lbEstimated}, ExitIncomplete, []string{
			"warning: sampled through the load balancer https://10.0.0.100:6443: outcomes are per server class, estimated from samples (2 classes in 30 of 30 samples, 3 live identity leases, 2 seen; confidence 0.999984 that no class was missed)",
			"warning: partial result: sampled through a load balancer: 2 of 3 live identity leases seen, the server classes are estimated from samples"}},
		{"routes json", "routes-lb.json", []string{"routes", "--snapshot", lbEstimated, "-o", "json"}, ExitIncomplete, nil},
		{"routes no headers", "routes-lb-no-headers.txt", []string{"routes", "--snapshot", lbEstimated, "--no-headers"}, ExitIncomplete, nil},
		{"explain", "explain-lb.txt", []string{"explain", "--snapshot", lbEstimated, "GET", "/apis/batch/v1/namespaces/default/jobs"}, ExitIncomplete, []string{
			"warning: sampled through the load balancer https://10.0.0.100:6443: outcomes are per server class, estimated from samples"}},
		{"preflight", "", []string{"preflight", "--snapshot", lbEstimated, "--to", "1.37"}, ExitIncomplete, []string{
			"warning: sampled through the load balancer",
			"warning: preflight: partial, exit 2 at --fail-on warning: 0 blocking, 0 warning finding(s); not read: sampled through a load balancer: 2 of 3 live identity leases seen"}},
		{"preflight fail-on blocking: a partial read fails closed", "", []string{"preflight", "--snapshot", lbEstimated, "--to", "1.37", "--fail-on", "blocking"}, ExitIncomplete, []string{
			"warning: sampled through the load balancer",
			"warning: preflight: partial, exit 2 at --fail-on blocking: 0 blocking, 0 warning finding(s); not read: sampled through a load balancer"}},
		{"preflight fail-on never", "", []string{"preflight", "--snapshot", lbEstimated, "--to", "1.37", "--fail-on", "never"}, ExitOK, nil},
		{"simulate", "", []string{"simulate", "upgrade", "--snapshot", lbEstimated, "--to", "1.37"}, ExitIncomplete, []string{
			"warning: sampled through the load balancer"}},
		{"traffic refuses", "", []string{"traffic", "--snapshot", lbEstimated}, ExitError, []string{
			"warning: sampled through the load balancer",
			"error: traffic reads each apiserver's counters, but this snapshot was sampled through the load balancer https://10.0.0.100:6443"}},
		{"every lease seen", "", []string{"routes", "--snapshot", complete}, ExitOK, []string{
			"warning: sampled through the load balancer https://10.0.0.100:6443: outcomes are per server class, every identity lease was seen (2 classes in 30 of 30 samples, 3 live identity leases, 3 seen; confidence 1 that no class was missed)"}},
		{"low confidence", "", []string{"explain", "--snapshot", doubtful, "GET", "/apis/batch/v1/namespaces/default/jobs"}, ExitIncomplete, []string{
			"warning: sampled through the load balancer https://10.0.0.100:6443: outcomes are per server class, estimated from samples (2 classes in 30 of 30 samples, 3 live identity leases, 2 seen; confidence 0.4631 that no class was missed)",
			"warning: confidence 0.4631 that no server class was missed is below 0.99: take more samples (--lb-samples)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, errOut)
			}
			stderrStartsWith(t, errOut, tc.stderr)
			if tc.golden != "" {
				golden(t, tc.golden, out)
			}
		})
	}
}

// TestLBSamplesFlag: --lb-samples is bounded; --via-lb reads the kubeconfig's server only, and
// not for watch, which follows servers by name.
func TestLBSamplesFlag(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\"}}]\ncontexts: [{name: c, context: {cluster: c}}]\ncurrent-context: c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"snapshot", "--via-lb", "--lb-samples", "0"}, "error: --lb-samples must be 1 to 1000, got 0"},
		{[]string{"snapshot", "--via-lb", "--lb-samples", "1001"}, "error: --lb-samples must be 1 to 1000, got 1001"},
		{[]string{"routes", "--via-lb", "--endpoint", "https://127.0.0.1:2"}, "error: --via-lb samples the kubeconfig's server: it cannot be used with --endpoint or --contexts"},
		{[]string{"routes", "--via-lb", "--snapshot", lbEstimated}, "error: --via-lb, --kubeconfig cannot be used with --snapshot"},
		{[]string{"watch", "--via-lb"}, "error: --via-lb cannot be used with watch"},
		{[]string{"routes", "-w", "--via-lb"}, "error: --via-lb cannot be used with watch"},
	} {
		_, errOut, code := run(t, append(tc.args, "--kubeconfig", kubeconfig)...)
		if code != ExitError || !strings.HasPrefix(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// stderrStartsWith checks that the first lines of errOut start with want, line by line: what a
// command says first.
func stderrStartsWith(t *testing.T, errOut string, want []string) {
	t.Helper()
	lines := strings.Split(errOut, "\n")
	for i, w := range want {
		if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
			t.Errorf("stderr line %d does not start with %q:\n%s", i+1, w, errOut)
		}
	}
}
