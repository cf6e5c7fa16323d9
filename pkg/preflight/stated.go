package preflight

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// statedFindings: where the installer's configuration disagrees with what a server does
// (MVP060; the server wins), and each upgrade whose server will start, with its stated flags,
// with the gate on and no --peer-ca-file (MVP061): no proxy filter, so a request for an API it
// lacks gets 404 instead of being proxied to a peer that serves it.
func statedFindings(start *snapshot.Snapshot, steps []simulate.Step, sim *simulate.Simulation, evidence map[string]string) []Finding {
	var out []Finding
	for _, c := range sim.StatedConfigs {
		for _, d := range c.Disagreements {
			out = append(out, Finding{Check: CheckStatedDisagrees.ID, Name: CheckStatedDisagrees.Name, Severity: Warning, Subject: c.Server,
				Message:  fmt.Sprintf("%s: %s; the server's behaviour is what mvpctl routes on", c.Server, d),
				Evidence: []string{evidence[c.Server], "stated: " + c.Source},
				Hint:     "the running process was not started with what the installer states (edited since, a patch, or a restart pending): the next restart or upgrade applies the stated flags — correct the configuration, or restart the server to apply it"})
		}
	}
	for i, st := range steps {
		if st.Action != simulate.ActionUpgrade {
			continue
		}
		srv := start.Find(st.Server)
		p, err := profile.Lookup(st.To)
		if srv == nil || err != nil {
			continue // Run has already failed on such a step
		}
		sp, ok := simulate.StatedUpgrade(srv, p.Version)
		if !ok || !sp.Gate || sp.PeerCAFile != "" || !mvp.EraOf(p.Version).HasProxy() {
			continue
		}
		out = append(out, Finding{Check: CheckUpgradeNoPeerCA.ID, Name: CheckUpgradeNoPeerCA.Name, Severity: Warning, Subject: srv.Name,
			Step: fmt.Sprintf("%d: %s", i+1, st),
			Message: fmt.Sprintf("%s will start on %s with its stated flags (%s): %s — a request for an API it lacks gets 404 instead of being proxied to a peer that serves it",
				srv.Name, p.Version.MinorString(), sp.Source, sp.Words(p.Version)),
			Evidence: []string{evidence[srv.Name], "stated: " + sp.Source},
			Hint:     "add --peer-ca-file (the CA that signed every apiserver's serving certificate, which must name kubernetes.default.svc) before the upgrade: kubeadm: apiServer.extraArgs of the ClusterConfiguration (kubectl -n kube-system edit cm kubeadm-config), which `kubeadm upgrade` writes into each node's manifest; else the node's /etc/kubernetes/manifests/kube-apiserver.yaml"})
	}
	return out
}
