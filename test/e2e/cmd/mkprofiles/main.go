// Command mkprofiles records the version profiles mvpctl's simulations start from: for each
// profile version it starts a real kube-apiserver with the binary's defaults (no
// --runtime-config, no --feature-gates, no --peer-* flags) and one with
// --runtime-config=api/all=true, reads each with pkg/profilerecord — the code `mvpctl profiles
// record` runs, on pkg/discover like `mvpctl snapshot` — and writes what each serves by itself,
// and the feature gate's default, to pkg/profile/profiles/<version>.json. Profiles are never
// typed by hand.
//
// With -provisional it records nothing: it derives the profile of the minor after the newest
// recorded one from that minor's published prerelease modules (provisional.go,
// docs/profiles.md).
//
//	cd test/e2e && go run ./cmd/mkprofiles [-out DIR] [version ...]
//	cd test/e2e && go run ./cmd/mkprofiles -provisional v0.38.0-beta.0|latest|committed -toolchain go1.27.3 [-out DIR]
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
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/profilerecord"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

func main() {
	out := flag.String("out", "../../pkg/profile/profiles", "directory to write <version>.json into")
	provisional := flag.String("provisional", "", "derive the provisional profile of the next minor from its published prerelease modules (v0.38.0-beta.0; latest: the newest the proxy lists; committed: the committed facts' version) instead of recording")
	toolchain := flag.String("toolchain", "auto", "GOTOOLCHAIN for downloading prerelease modules (they may need a newer Go than mvpctl)")
	flag.Parse()
	if *provisional != "" {
		if err := makeProvisional(*provisional, *toolchain, *out); err != nil {
			log.Fatalf("provisional profile: %v", err)
		}
		return
	}
	versions := flag.Args()
	if len(versions) == 0 {
		versions = harness.ProfileVersions
	}
	// A prerelease whose kube-apiserver cannot be built yet keeps its derived profile; make
	// profiles says which modules it waits for, and records nothing (exit 1).
	if err := prereleasesBuildable(fetchModules, *toolchain, *out, versions); err != nil {
		log.Fatalf("make profiles: %v; nothing was recorded or written", err)
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
	// A recorded profile replaces the provisional one of its minor; the others are derived
	// again from their facts, from the profiles just recorded.
	if err := deriveAll(*out); err != nil {
		log.Fatalf("provisional profiles: %v", err)
	}
}

func record(version, dir string) error {
	def, err := observe(version, profile.ServerDefault, nil)
	if err != nil {
		return err
	}
	all, err := observe(version, profile.ServerAllAPIs, []string{"--runtime-config=api/all=true"})
	if err != nil {
		return err
	}
	source := fmt.Sprintf("kube-apiserver %s built from k8s.io/kubernetes, recorded by make profiles: %q with no --runtime-config, --feature-gates or --peer-* flag; %q with --runtime-config=api/all=true", version, profile.ServerDefault, profile.ServerAllAPIs)
	rep, err := profilerecord.Build(def, &all, source)
	if err != nil {
		return err
	}
	// These servers were started here, with the binary's defaults: anything the recording
	// could not establish, or that looks otherwise, is a fault of the recording.
	if problems := append(rep.NotCaptured, rep.NotDefault...); len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	for _, n := range rep.Notes {
		log.Printf("note: %s", n)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return rep.Profile.WriteFile(filepath.Join(dir, version+".json"), true)
}

// observe starts one kube-apiserver of version with the binary's proxy defaults and extra
// flags, and reads it with pkg/profilerecord, the code `mvpctl profiles record` runs.
func observe(version, role string, flags []string) (profilerecord.Observation, error) {
	name := "profile-" + role + "-" + strings.ReplaceAll(strings.TrimPrefix(version, "v"), ".", "-")
	cp, err := harness.NewControlPlane(harness.Config{Servers: []harness.ServerSpec{{Name: name, Version: version,
		DefaultProxyConfig: true, ExtraFlags: flags}}, Logf: log.Printf})
	if cp != nil {
		defer cp.Close()
	}
	if err != nil {
		return profilerecord.Observation{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := cp.Server(name)
	obs, err := profilerecord.Observe(ctx, discover.Options{Config: srv.RestConfig(), Endpoints: []string{srv.URL},
		Warn: func(s string) { log.Printf("warning: %s", s) }})
	if err != nil {
		return obs, err
	}
	if obs.Version != version {
		return obs, fmt.Errorf("server reports %s, want %s", obs.Version, version)
	}
	return obs, nil
}
