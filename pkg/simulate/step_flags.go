package simulate

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// The steps that restart a server with one of its peer-proxy flags changed: each sets what
// it changes, then restartWith says so and starts the server again.

// restartWith adds the evidence of a restart with a changed flag (about topics, said) and
// starts srv again.
func restartWith(srv *snapshot.Server, topics snapshot.EvidenceTopics, said string) (stepDone, error) {
	srv.PeerProxy.AddEvidence(simulated(topics), said)
	start(srv)
	return stepDone{}, nil
}

// gateOffStep restarts the server with UnknownVersionInteroperabilityProxy=false. With the
// gate off, every --peer-* flag is refused, so the peer CA goes too.
type gateOffStep struct{}

func (gateOffStep) Execute(srv *snapshot.Server, _ Step) (stepDone, error) {
	srv.PeerProxy.GateEnabled = snapshot.Ptr(false)
	srv.PeerProxy.FilterInstalled = snapshot.Ptr(false)
	return restartWith(srv, snapshot.TopicGate, "simulated: feature gate turned off")
}

// dropPeerCAStep restarts the server without --peer-ca-file: no proxy filter.
type dropPeerCAStep struct{}

func (dropPeerCAStep) Execute(srv *snapshot.Server, _ Step) (stepDone, error) {
	srv.PeerProxy.FilterInstalled = snapshot.Ptr(false)
	return restartWith(srv, 0, "simulated: --peer-ca-file removed")
}

// peerCAStep restarts the server with a --peer-ca-file that trusts its peers' serving
// certificates (peer-ca-right) or does not (peer-ca-wrong: it learns no peer).
type peerCAStep struct{ trusts bool }

func (u peerCAStep) Execute(srv *snapshot.Server, step Step) (stepDone, error) {
	srv.PeerProxy.PeerCATrustsPeers = snapshot.Ptr(u.trusts)
	return restartWith(srv, 0, "simulated: "+step.String())
}

// advertiseStep restarts the server with a peer-advertise address its peers can reach
// (advertise-reachable) or cannot (advertise-unreachable: no peer learns it).
type advertiseStep struct{ reachable bool }

func (u advertiseStep) Execute(srv *snapshot.Server, step Step) (stepDone, error) {
	srv.PeerProxy.AdvertiseAddressReachable = snapshot.Ptr(u.reachable)
	return restartWith(srv, 0, "simulated: "+step.String())
}
