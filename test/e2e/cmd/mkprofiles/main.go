// Command mkprofiles records the version profiles mvpctl's simulations start from: for each
// pinned kube-apiserver version it starts one real, default server (plus the peer-proxy
// flags, which change nothing it serves), snapshots it with pkg/discover — the same code
// `mvpctl snapshot` runs — and writes what it serves by itself to
// pkg/simulate/profiles/<version>.yaml. Profiles are never typed by hand.
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
	out := flag.String("out", "../../pkg/simulate/profiles", "directory to write <version>.yaml into")
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

func record(version, dir string) error {
	name := "profile-" + strings.ReplaceAll(strings.TrimPrefix(version, "v"), ".", "-")
	cp, err := harness.NewControlPlane(harness.Config{Servers: []harness.ServerSpec{{Name: name, Version: version}}, Logf: log.Printf})
	if cp != nil {
		defer cp.Close()
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := cp.Server(name)
	snap, err := discover.Discover(ctx, discover.Options{Config: srv.RestConfig(), Endpoints: []string{srv.URL}, NoLeaseServers: true,
		Warn: func(s string) { log.Printf("warning: %s", s) }})
	if err != nil {
		return err
	}
	if len(snap.Servers) != 1 || !snap.Servers[0].Reachable {
		return fmt.Errorf("snapshot of the profile server is not one reachable server: %+v", snap.Servers)
	}
	got := snap.Servers[0]
	if got.Version != version {
		return fmt.Errorf("server reports %s, want %s", got.Version, version)
	}
	// Keep what the binary serves; drop what belongs to this one run (addresses, identity,
	// leases, configuration evidence) so regenerating a profile only changes it when the
	// version serves something else.
	profile := snapshot.New()
	profile.TakenAt = snap.TakenAt.UTC().Truncate(24 * time.Hour)
	profile.Source = fmt.Sprintf("kube-apiserver %s built from k8s.io/kubernetes, default flags, recorded by make profiles", version)
	var resources []snapshot.Resource
	for _, r := range got.Resources {
		if r.Source == snapshot.SourceBuiltin || r.Source == "" {
			resources = append(resources, r)
		}
	}
	profile.Servers = []snapshot.Server{{Name: "default", Version: got.Version, EmulatedVersion: got.EmulatedVersion,
		Reachable: true, DiscoveryFormat: got.DiscoveryFormat, Resources: resources}}
	if err := profile.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return profile.WriteFile(filepath.Join(dir, version+".yaml"), false)
}
