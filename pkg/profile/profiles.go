package profile

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// embeddedProfiles holds one snapshot per Kubernetes version: a default kube-apiserver of that version,
// started and snapshotted by `make profiles` (test/e2e/cmd/mkprofiles). Never typed by hand.
//
//go:embed profiles/*.json
var embeddedProfiles embed.FS

// profileSource is where profiles are read from: the embedded ones, or fixtures in tests.
var profileSource fs.FS = embeddedProfiles

// ReplaceEmbedded makes the profile files of fsys (profiles/*.json and profiles/*.yaml) the
// embedded profiles until restore is called; nil stands for those built into mvpctl. It is
// for tests of packages that simulate on small hand-made profiles.
func ReplaceEmbedded(fsys fs.FS) (restore func()) {
	if fsys == nil {
		fsys = embeddedProfiles
	}
	saved := profileSource
	profileSource = fsys
	profilesOnce, loadedProfiles, loadErr = sync.Once{}, nil, nil
	builtinOnce, builtinSet = sync.Once{}, nil
	return func() {
		profileSource = saved
		profilesOnce, loadedProfiles, loadErr = sync.Once{}, nil, nil
		builtinOnce, builtinSet = sync.Once{}, nil
	}
}

// Profile is what a kube-apiserver of one version serves by itself: with its defaults, and
// with --runtime-config=api/all=true.
type Profile struct {
	// Version is the exact binary version the profile was taken from, e.g. v1.36.3.
	Version snapshot.Version
	Server  snapshot.Server
	TakenAt string
	Source  string
	// Resources is the default served set.
	Resources []snapshot.Resource
	// Full is everything the binary can serve (api/all=true); nil when the profile predates
	// its recording, and then a server's runtime-config cannot be inferred.
	Full []snapshot.Resource
	// FullServeRemoved is what the binary serves with api/all=true and the one-release escape
	// (mvp.ServeRemovedAPIsEnv=true): Full plus the kinds the release removes. Nil when not
	// recorded; the escape then cannot be simulated.
	FullServeRemoved []snapshot.Resource
	// GateDefault is the recorded default of UnknownVersionInteroperabilityProxy; nil when not
	// recorded.
	GateDefault *bool
	// Provisional is set when the profile was derived from published modules, not recorded
	// from a running apiserver: every report that uses it says so first.
	Provisional *snapshot.Provisional
	// From is where the profile was loaded from: FromEmbedded, or the path of a profile file
	// (--profile, or the profile directory).
	From string
	// layer is From's precedence (profilesources.go).
	layer profileLayer
}

// FromEmbedded is Profile.From for a profile built into mvpctl.
const FromEmbedded = "embedded"

// Names of the servers of a profile file (pkg/profilerecord writes them).
const (
	// ServerDefault is the server started with the binary's defaults.
	ServerDefault = "default"
	// ServerAllAPIs is the server started with --runtime-config=api/all=true.
	ServerAllAPIs = "api-all"
	// ServerServeRemoved is the server started with --runtime-config=api/all=true and
	// the one-release escape (mvp.ServeRemovedAPIsEnv=true).
	ServerServeRemoved = "api-all-serve-removed"
)

// All returns every profile in use, oldest first: the embedded ones, or what Use
// made of them and the user's profile files. The embedded ones are decoded once per process.
func All() ([]Profile, error) {
	if set := activeSet(); set != nil && set.profiles != nil {
		return set.profiles, nil
	}
	return embeddedProfileList()
}

// embeddedProfileList returns the embedded profiles, oldest first, decoded once per process.
func embeddedProfileList() ([]Profile, error) {
	profilesOnce.Do(func() { loadedProfiles, loadErr = loadProfiles() })
	return loadedProfiles, loadErr
}

var (
	profilesOnce   sync.Once
	loadedProfiles []Profile
	loadErr        error
)

// profileFiles are the profile files, JSON (what make profiles writes: it loads several
// times faster than YAML) or YAML (test fixtures).
func profileFiles() ([]string, error) {
	var files []string
	for _, pattern := range []string{"profiles/*.json", "profiles/*.yaml"} {
		fs, err := fs.Glob(profileSource, pattern)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	return files, nil
}

func loadProfiles() ([]Profile, error) {
	files, err := profileFiles()
	if err != nil {
		return nil, err
	}
	out := make([]Profile, len(files))
	errs := make([]error, len(files))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, f := range files {
		g.Go(func() error {
			out[i], errs[i] = loadProfile(f)
			return nil
		})
	}
	g.Wait() // errs keeps each error by file, so that the first in file order is returned
	for _, err := range errs {
		if err != nil {
			return nil, err // the first, in file order
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version.Less(out[j].Version) })
	return out, nil
}

// loadProfile decodes one embedded profile file (they are independent: loaded side by side).
func loadProfile(f string) (Profile, error) {
	data, err := fs.ReadFile(profileSource, f)
	if err != nil {
		return Profile{}, err
	}
	p, err := Decode(data)
	if err != nil {
		return Profile{}, fmt.Errorf("embedded profile %s: %w", path.Base(f), err)
	}
	p.From = FromEmbedded
	return p, nil
}

// Decode reads a profile from a profile file's bytes; an error says what makes them no
// profile. A profile is a snapshot whose server "default" (or, recorded before profiles held
// two servers, whose one server) is a kube-apiserver with its defaults, and whose server
// "api-all", when there is one, is the same version with --runtime-config=api/all=true. Only
// what the binary serves belongs in a profile: a CRD or an aggregated API in it says the file
// is a cluster's snapshot, not a profile.
func Decode(data []byte) (Profile, error) {
	snap, err := snapshot.Decode(data)
	if err != nil {
		return Profile{}, err
	}
	srv := snap.Find(ServerDefault)
	if srv == nil && len(snap.Servers) == 1 {
		srv = &snap.Servers[0] // recorded before profiles held two servers
	}
	if srv == nil {
		return Profile{}, fmt.Errorf("no server %q among %d servers (%s): not a version profile; `mvpctl profiles record` writes one", ServerDefault, len(snap.Servers), strings.Join(snap.ServerNames(), ", "))
	}
	v, err := snapshot.ParseVersion(srv.Version)
	if err != nil {
		return Profile{}, fmt.Errorf("server %q: %w", srv.Name, err)
	}
	if srv.EmulatedVersion != "" {
		ev, err := snapshot.ParseVersion(srv.EmulatedVersion)
		if err == nil {
			err = mvp.CheckEmulatedVersion(v, ev)
		}
		if err != nil {
			return Profile{}, fmt.Errorf("server %q: %w", srv.Name, err)
		}
	}
	p := Profile{Version: v, Server: *srv, TakenAt: snap.TakenAt.UTC().Format("2006-01-02"), Source: snap.Source,
		Resources: srv.Resources, GateDefault: srv.PeerProxy.GateEnabled, Provisional: snap.Provisional}
	servers := []*snapshot.Server{srv}
	for _, extra := range []struct {
		name string
		set  *[]snapshot.Resource
	}{{ServerAllAPIs, &p.Full}, {ServerServeRemoved, &p.FullServeRemoved}} {
		all := snap.Find(extra.name)
		if all == nil {
			continue
		}
		if all.Version != srv.Version {
			return Profile{}, fmt.Errorf("server %q is %s, server %q %s: a profile is one version", extra.name, all.Version, srv.Name, srv.Version)
		}
		*extra.set = all.Resources
		servers = append(servers, all)
	}
	for _, s := range servers {
		for _, r := range s.Resources {
			if r.Source != snapshot.SourceBuiltin && r.Source != "" {
				return Profile{}, fmt.Errorf("server %q: %s has source %q: a profile holds only what the binary serves (source %q), not a cluster's snapshot; `mvpctl profiles record` writes one", s.Name, r.GVR(), r.Source, snapshot.SourceBuiltin)
			}
		}
	}
	return p, nil
}

// Versions returns the exact versions of the embedded profiles, oldest first
// ("v1.36.3"): what Lookup finds a profile for, one per minor. They are the file names
// (make profiles names each file for its server's version), so nothing is decoded.
func Versions() ([]string, error) {
	files, err := profileFiles()
	if err != nil {
		return nil, err
	}
	var vs []snapshot.Version
	for _, f := range files {
		v, err := snapshot.ParseVersion(strings.TrimSuffix(strings.TrimSuffix(path.Base(f), ".json"), ".yaml"))
		if err != nil {
			return nil, fmt.Errorf("embedded profile %s: the file name is not a version: %w", path.Base(f), err)
		}
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Less(vs[j]) })
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out, nil
}

// Lookup finds the profile for a version: the profile of its minor ("1.36", "1.36.3" and
// "v1.36.1" all give the 1.36 profile), since patch releases do not change what the peer proxy
// does (docs/behaviour.md §1). A version without a profile is an error that lists the versions
// there are: a simulation must never quietly use data of another minor.
func Lookup(version string) (Profile, error) {
	all, err := All()
	if err != nil {
		return Profile{}, err
	}
	want, err := snapshot.ParseVersion(version)
	if err != nil {
		return Profile{}, err
	}
	var found *Profile
	for i := range all {
		if p := &all[i]; mvp.SameMinor(p.Version, want) {
			found = p // sorted ascending: the last match is the newest patch
		}
	}
	if found == nil {
		var have []string
		for _, p := range all {
			have = append(have, p.Version.String())
		}
		// How to get one: record it from a running apiserver of that version into the profile
		// directory (read by every command), or name the file.
		file := "FILE"
		if set := activeSet(); set != nil && set.sources.Dir != "" {
			dir := set.sources.DirShown
			if dir == "" {
				dir = set.sources.Dir
			}
			file = filepath.Join(dir, want.String()+".json")
		}
		return Profile{}, fmt.Errorf("no profile for Kubernetes %s: mvpctl has profiles for %s; record one from a running %s kube-apiserver: `mvpctl profiles record --context CONTEXT -f %s`, or give a profile file with --profile FILE",
			version, strings.Join(have, ", "), want.MinorString(), file)
	}
	return *found, nil
}
