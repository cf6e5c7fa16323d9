package simulate

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// The steps that restart a server with one of its peer-proxy flags changed.

// gateOffStep restarts the server with UnknownVersionInteroperabilityProxy=false. With the
// gate off, every --peer-* flag is refused, so the peer CA goes too.
type gateOffStep struct{}

func (gateOffStep) Execute(srv *snapshot.Server, _ Step) (stepDone, error) {
	srv.PeerProxy.GateEnabled = snapshot.Ptr(false)
	srv.PeerProxy.FilterInstalled = snapshot.Ptr(false)
	srv.PeerProxy.AddEvidence(simulated(snapshot.TopicGate), "simulated: feature gate turned off")
	start(srv)
	return stepDone{}, nil
}

// dropPeerCAStep restarts the server without --peer-ca-file: no proxy filter.
type dropPeerCAStep struct{}

func (dropPeerCAStep) Execute(srv *snapshot.Server, _ Step) (stepDone, error) {
	srv.PeerProxy.FilterInstalled = snapshot.Ptr(false)
	srv.PeerProxy.AddEvidence(simulated(0), "simulated: --peer-ca-file removed")
	start(srv)
	return stepDone{}, nil
}

// peerCAStep restarts the server with a --peer-ca-file that trusts its peers' serving
// certificates (peer-ca-right) or does not (peer-ca-wrong: it learns no peer).
type peerCAStep struct{ trusts bool }

func (u peerCAStep) Execute(srv *snapshot.Server, step Step) (stepDone, error) {
	srv.PeerProxy.PeerCATrustsPeers = snapshot.Ptr(u.trusts)
	srv.PeerProxy.AddEvidence(simulated(0), "simulated: "+step.String())
	start(srv)
	return stepDone{}, nil
}

// advertiseStep restarts the server with a peer-advertise address its peers can reach
// (advertise-reachable) or cannot (advertise-unreachable: no peer learns it).
type advertiseStep struct{ reachable bool }

func (u advertiseStep) Execute(srv *snapshot.Server, step Step) (stepDone, error) {
	srv.PeerProxy.AdvertiseAddressReachable = snapshot.Ptr(u.reachable)
	srv.PeerProxy.AddEvidence(simulated(0), "simulated: "+step.String())
	start(srv)
	return stepDone{}, nil
}
