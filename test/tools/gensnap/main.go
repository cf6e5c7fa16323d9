// Command gensnap writes a synthetic snapshot of a CRD-heavy control plane for performance
// measurements (docs/performance.md): -servers apiservers (v1.36.3, peer proxy set up), each
// serving -gvrs GVRs but for a different tenth, every 1.35+ server fully synced.
//
//	go run ./test/tools/gensnap -servers 5 -gvrs 20000 -o /tmp/big.json
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func main() {
	servers := flag.Int("servers", 5, "apiservers")
	gvrs := flag.Int("gvrs", 20000, "GVRs in the control plane")
	out := flag.String("o", "", "output file (.json or .yaml)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gensnap: -o FILE is required")
		os.Exit(1)
	}
	if err := generate(*servers, *gvrs).WriteFile(*out, strings.HasSuffix(*out, ".json")); err != nil {
		fmt.Fprintln(os.Stderr, "gensnap:", err)
		os.Exit(1)
	}
}

func generate(nServers, nGVRs int) *snapshot.Snapshot {
	takenAt := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	renew := takenAt.Add(-3 * time.Second)
	s := snapshot.New()
	s.TakenAt, s.Source = takenAt, fmt.Sprintf("gensnap: %d servers x %d GVRs", nServers, nGVRs)
	var all []snapshot.Resource
	for i := 0; i < nGVRs; i++ {
		all = append(all, snapshot.Resource{Group: fmt.Sprintf("g%d.example.com", i%500), Version: "v1", Resource: fmt.Sprintf("r%d", i),
			Kind: fmt.Sprintf("R%d", i), Namespaced: true, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}, Source: snapshot.SourceCRD})
	}
	for n := 0; n < nServers; n++ {
		name := fmt.Sprintf("kas-%d", n)
		var own []snapshot.Resource
		for i, r := range all {
			if i%10 != n%10 { // server n lacks a tenth of the GVRs, a different tenth each
				own = append(own, r)
			}
		}
		s.Servers = append(s.Servers, snapshot.Server{
			Name: name, ID: "apiserver-" + name, Hostname: name, Version: "v1.36.3",
			PeerAdvertiseAddress: fmt.Sprintf("10.0.0.%d:6443", n+1),
			IdentityLease:        &snapshot.Lease{Name: "apiserver-" + name, HolderIdentity: "apiserver-" + name + "_x", RenewTime: &renew},
			PeerProxy:            snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), FilterInstalled: snapshot.Ptr(true)},
			Reachable:            true, DiscoveryFormat: snapshot.DiscoveryNoPeer,
			Resources: own, PeerAggregated: all,
		})
	}
	return s
}
