package imagebuild

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestImage builds the image from a static binary of this tree, twice, and checks the tarball
// as `docker load`, kind, minikube and ctr read it: the same bytes both times; manifest.json
// with the repository tag; a config whose entrypoint is the binary, whose user is not root
// and which carries the OCI labels; a layer whose entrypoint file, extracted and run,
// prints `mvpctl version`'s version, and whose /etc/passwd names the user.
func TestImage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image is linux/amd64 or arm64: its binary runs on linux only")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mvpctl")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v9.9.9-image", "-o", bin, "../../cmd/mvpctl")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	o := Options{Binary: bin, License: "../../LICENSE", Ref: "ghcr.io/mvpctl/mvpctl:test", OS: "linux", Arch: runtime.GOARCH,
		Created: time.Date(2026, 11, 28, 1, 38, 32, 0, time.UTC), Version: "v9.9.9-image", Revision: "abc1234", Source: "https://github.com/mvpctl/mvpctl"}
	var first, second bytes.Buffer
	if err := Write(&first, o); err != nil {
		t.Fatal(err)
	}
	if err := Write(&second, o); err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(first.Bytes()) != sha256.Sum256(second.Bytes()) {
		t.Error("two builds of the same inputs differ")
	}
	entries := untar(t, bytes.NewReader(first.Bytes()))
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(entries["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("manifest.json: %v: %s", err, entries["manifest.json"])
	}
	m := manifest[0]
	if !slices.Equal(m.RepoTags, []string{o.Ref}) || len(m.Layers) != 1 {
		t.Errorf("manifest.json: tags %v, %d layer(s); want [%s], 1", m.RepoTags, len(m.Layers), o.Ref)
	}
	var config struct {
		OS, Architecture string
		Created          time.Time
		Config           struct {
			Entrypoint []string
			User       string
			Labels     map[string]string
		}
	}
	if err := json.Unmarshal(entries[m.Config], &config); err != nil {
		t.Fatalf("config %s: %v", m.Config, err)
	}
	c := config.Config
	if !slices.Equal(c.Entrypoint, []string{"/mvpctl"}) || config.OS != "linux" || config.Architecture != runtime.GOARCH || !config.Created.Equal(o.Created) {
		t.Errorf("config: entrypoint %v, %s/%s, created %s", c.Entrypoint, config.OS, config.Architecture, config.Created)
	}
	if uid, _, _ := strings.Cut(c.User, ":"); uid == "" || uid == "0" || uid == "root" {
		t.Errorf("config: user %q, want a non-root uid", c.User)
	}
	for k, v := range map[string]string{"org.opencontainers.image.version": "v9.9.9-image", "org.opencontainers.image.revision": "abc1234",
		"org.opencontainers.image.source": "https://github.com/mvpctl/mvpctl", "org.opencontainers.image.created": "2026-11-28T01:38:32Z",
		"org.opencontainers.image.licenses": "Apache-2.0", "org.opencontainers.image.title": "mvpctl"} {
		if c.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], v)
		}
	}
	zr, err := gzip.NewReader(bytes.NewReader(entries[m.Layers[0]]))
	if err != nil {
		t.Fatalf("layer %s: %v", m.Layers[0], err)
	}
	files := untar(t, zr)
	if !strings.Contains(string(files["etc/passwd"]), ":65532:65532:") {
		t.Errorf("/etc/passwd does not name uid 65532:\n%s", files["etc/passwd"])
	}
	entry := filepath.Join(dir, "entrypoint")
	if err := os.WriteFile(entry, files[strings.TrimPrefix(c.Entrypoint[0], "/")], 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(entry, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "Client Version: v9.9.9-image (commit ") {
		t.Errorf("the entrypoint's `mvpctl version`: %v:\n%s", err, out)
	}
}

// untar reads a tar stream into a map of its regular files' contents by name.
func untar(t *testing.T, r io.Reader) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(h.Name, "/")] = data
	}
}
