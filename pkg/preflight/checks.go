package preflight

import "github.com/mvpctl/mvpctl/pkg/simulate"

// Severity of a finding.
type Severity string

const (
	Info     Severity = "info"
	Warning  Severity = "warning"
	Blocking Severity = "blocking"
)

// Check is one preflight check. IDs are stable: CI configurations and dashboards refer to them.
type Check struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Title string `json:"title"`
}

// The checks, in the order they run.
var (
	CheckReachable       = Check{"MVP001", "apiserver-reachable", "every apiserver answers"}
	CheckGate            = Check{"MVP002", "peer-proxy-gate", "the UnknownVersionInteroperabilityProxy gate is on"}
	CheckFilter          = Check{"MVP003", "peer-proxy-configured", "the peer proxy is configured (--peer-ca-file)"}
	CheckAdvertise       = Check{"MVP004", "peer-advertise-address", "the identity lease advertises a peer address"}
	CheckPeerDiscovery   = Check{"MVP005", "peer-aggregated-discovery", "peer-aggregated discovery is on (1.35+)"}
	CheckServedEveryStep = Check{"MVP010", "gvr-reachable-every-step", "every GVR served somewhere is reachable from every apiserver at every step"}
	// CheckUnavoidableWindow is MVP010's window that no order avoids: every apiserver that
	// serves the GVR is down, and no other serves it before or after its upgrade.
	CheckUnavoidableWindow = Check{"MVP011", "gvr-window-unavoidable", "no GVR is unserved while the only apiserver that serves it restarts (no order avoids it)"}
	CheckTrafficFails      = Check{"MVP020", "traffic-would-fail", "no replayed request would get 404 or 503"}
	CheckTrafficRemoved    = Check{"MVP021", "traffic-uses-removed-api", "no replayed request uses an API the target removes"}
	CheckTrafficInput      = Check{"MVP022", "traffic-readable", "every traffic line is readable"}
	CheckDiscovery         = Check{"MVP030", "discovery-stale-or-missing", "peer-aggregated /apis lists what is served, and all of it (recorded snapshots)"}
	// CheckPeerDiscoveryFails is MVP030's cause: peer discovery failing now (live snapshots).
	CheckPeerDiscoveryFails = Check{"MVP031", "peer-discovery-fails", "every apiserver fetches its peers' discovery (what its peer-aggregated /apis learned, sync errors, published addresses)"}
	// CheckRebuildExit: the 1.33/1.34 defect that makes a server exit at a failed peer fetch.
	CheckRebuildExit = Check{"MVP032", "peer-discovery-rebuild-exit", "no 1.33/1.34 apiserver exits at a peer-discovery rebuild (docs/behaviour.md §11.2)"}
	CheckConfigLoss  = Check{"MVP040", "runtime-config-kept", "no upgraded apiserver keeps a --runtime-config entry its new version does not have"}
	// CheckAPIServices runs when the start snapshot recorded the cluster's APIServices.
	CheckAPIServices = Check{"MVP050", "apiservice-available", "every aggregated APIService is Available (live snapshots)"}
	// The installer's configuration (kubeadm-config, static pod manifests: snapshot.Server.Stated).
	CheckStatedDisagrees = Check{"MVP060", "stated-config-disagrees", "what the installer's configuration states agrees with what each apiserver does"}
	CheckUpgradeNoPeerCA = Check{"MVP061", "upgrade-without-peer-ca", "no upgraded apiserver starts, with its stated flags, with the gate on and no --peer-ca-file"}
)

// Checks lists every check.
var Checks = []Check{CheckReachable, CheckGate, CheckFilter, CheckAdvertise, CheckPeerDiscovery,
	CheckServedEveryStep, CheckUnavoidableWindow, CheckTrafficFails, CheckTrafficRemoved, CheckTrafficInput, CheckDiscovery, CheckPeerDiscoveryFails, CheckRebuildExit,
	CheckConfigLoss, CheckAPIServices, CheckStatedDisagrees, CheckUpgradeNoPeerCA}

// Finding is one problem a check found.
type Finding struct {
	Check    string   `json:"check"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	// Subject is what the finding is about: a server, a GVR on a server, a user agent.
	Subject string `json:"subject"`
	Step    string `json:"step,omitempty"`
	Message string `json:"message"`
	// Evidence says where the facts come from: which server, which document, when.
	Evidence []string `json:"evidence"`
	Hint     string   `json:"hint"`
	// Windows are a window finding's (MVP010, MVP011) records: each server that answers 404
	// or 503 for its GVR, at each step, with the routing reason.
	Windows []simulate.Risk `json:"windows,omitempty"`
}
