// Command mkprofiles records the version profiles mvpctl's simulations start from: for each
// profile version it starts a real kube-apiserver with the binary's defaults (no
// --runtime-config, no --feature-gates, no --peer-* flags) and one with
// --runtime-config=api/all=true, snapshots each with pkg/discover — the same code `mvpctl
// snapshot` runs — and writes what each serves by itself, and the feature gate's default, to
// pkg/simulate/profiles/<version>.json. Profiles are never typed by hand.
//
//	cd test/e2e && go run ./cmd/mkprofiles [-out DIR] [version ...]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

func main() {
	out := flag.String("out", "../../pkg/simulate/profiles", "directory to write <version>.json into")
	flag.Parse()
	versions := flag.Args()
	if len(versions) == 0 {
		versions = harness.ProfileVersions
	}
	if os.Geteuid() != 0 {
		log.Fatal("mkprofiles starts kube-apiservers under `unshare --uts`: run it as root")
	}
	for _, v := range versions {
		t0 := time.Now()
		if err := record(v, *out); err != nil {
			log.Fatalf("profile %s: %v", v, err)
		}
		log.Printf("profile %s written in %s", v, time.Since(t0).Round(time.Second))
	}
}

// The two servers a profile records: the binary's defaults, and everything it has.
const (
	profileDefault = "default"
	profileAll     = "api-all"
)

func record(version, dir string) error {
	def, err := observe(version, profileDefault, nil)
	if err != nil {
		return err
	}
	all, err := observe(version, profileAll, []string{"--runtime-config=api/all=true"})
	if err != nil {
		return err
	}
	if def.GateEnabled == nil {
		return fmt.Errorf("the default server's feature gate could not be established: %v", def.Evidence)
	}
	profile := snapshot.New()
	profile.TakenAt = def.TakenAt.UTC().Truncate(24 * time.Hour)
	profile.Source = fmt.Sprintf("kube-apiserver %s built from k8s.io/kubernetes, recorded by make profiles: %q with no --runtime-config, --feature-gates or --peer-* flag; %q with --runtime-config=api/all=true", version, profileDefault, profileAll)
	profile.Servers = []snapshot.Server{def.server(profileDefault), all.server(profileAll)}
	profile.Servers[0].PeerProxy = snapshot.PeerProxy{GateEnabled: def.GateEnabled,
		Evidence: []string{fmt.Sprintf("recorded: UnknownVersionInteroperabilityProxy is %s by default (readyz of a server started without --feature-gates)", onOff(*def.GateEnabled))}}
	if err := profile.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return profile.WriteFile(filepath.Join(dir, version+".json"), true)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// observation is one profile server as pkg/discover read it.
type observation struct {
	snapshot.Server
	TakenAt     time.Time
	GateEnabled *bool
	Evidence    []string
}

// server keeps what the binary serves; what belongs to this one run (addresses, identity,
// leases, configuration evidence) is dropped, so regenerating a profile only changes it when
// the version serves something else.
func (o observation) server(name string) snapshot.Server {
	var resources []snapshot.Resource
	for _, r := range o.Resources {
		if r.Source == snapshot.SourceBuiltin || r.Source == "" {
			resources = append(resources, r)
		}
	}
	return snapshot.Server{Name: name, Version: o.Version, EmulatedVersion: o.EmulatedVersion,
		Reachable: true, DiscoveryFormat: o.DiscoveryFormat, Resources: resources}
}

// observe starts one kube-apiserver of version with the binary's proxy defaults and extra
// flags, and snapshots it with pkg/discover, the code `mvpctl snapshot` runs.
func observe(version, role string, flags []string) (observation, error) {
	name := "profile-" + role + "-" + strings.ReplaceAll(strings.TrimPrefix(version, "v"), ".", "-")
	cp, err := harness.NewControlPlane(harness.Config{Servers: []harness.ServerSpec{{Name: name, Version: version,
		DefaultProxyConfig: true, ExtraFlags: flags}}, Logf: log.Printf})
	if cp != nil {
		defer cp.Close()
	}
	if err != nil {
		return observation{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := cp.Server(name)
	snap, err := discover.Discover(ctx, discover.Options{Config: srv.RestConfig(), Endpoints: []string{srv.URL}, NoLeaseServers: true,
		Warn: func(s string) { log.Printf("warning: %s", s) }})
	if err != nil {
		return observation{}, err
	}
	if len(snap.Servers) != 1 || !snap.Servers[0].Reachable {
		return observation{}, fmt.Errorf("snapshot of the profile server is not one reachable server: %+v", snap.Servers)
	}
	got := snap.Servers[0]
	if got.Version != version {
		return observation{}, fmt.Errorf("server reports %s, want %s", got.Version, version)
	}
	return observation{Server: got, TakenAt: snap.TakenAt, GateEnabled: got.PeerProxy.GateEnabled, Evidence: got.PeerProxy.Evidence}, nil
}
