// Package imagebuild builds mvpctl's container image without a container daemon: one layer
// holding the static binary, the licence, /etc/passwd and /etc/group naming the non-root user
// it runs as, and (when given) a CA bundle, on no base image (FROM scratch, what distroless'
// static image adds to it and nothing more); written with go-containerregistry as a tarball in
// `docker save` form with its repository tag, which `docker load`, `kind load image-archive`,
// `minikube image load` and `ctr images import` take, or pushed by crane from it.
//
// The same inputs give the same bytes: every file's time is the image's creation time
// (SOURCE_DATE_EPOCH or the commit's), owners are root, and the layer's gzip has no time.
package imagebuild

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Paths and the user of the image.
const (
	// Entrypoint is where the binary is, the image's entrypoint.
	Entrypoint = "/mvpctl"
	// User is the non-root user and group the image runs as (distroless' nonroot: 65532).
	User = "65532:65532"
	// CABundle is where a CA bundle given goes (where Go's crypto/x509 looks on Linux).
	CABundle = "/etc/ssl/certs/ca-certificates.crt"
)

// Options are what goes into the image.
type Options struct {
	// Binary is the static mvpctl binary for OS/Arch (make release).
	Binary string
	// License is the licence file, at /LICENSE.
	License string
	// CACerts is a CA bundle for CABundle, or "" for none.
	CACerts string
	// Ref is the image's name and tag (ghcr.io/mvpctl/mvpctl:main).
	Ref  string
	OS   string
	Arch string
	// Created is the image's and its files' time.
	Created time.Time
	// Version, Revision and Source are the OCI labels' (org.opencontainers.image.*).
	Version, Revision, Source string
}

// Labels are the image's OCI annotations as labels.
func (o Options) Labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "mvpctl",
		"org.opencontainers.image.description": "Mixed Version Proxy routing, rehearsals and preflight checks for Kubernetes control-plane upgrades",
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Revision,
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.created":     o.Created.UTC().Format(time.RFC3339),
	}
}

// Image builds the image.
func Image(o Options) (v1.Image, error) {
	layerTar, err := files(o)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return nil, err
	}
	img, err := mutate.Append(empty.Image, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: o.Created}, CreatedBy: "mvpctl imagebuild: " + Entrypoint + ", /LICENSE, /etc/passwd, /etc/group",
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = o.OS, o.Arch
	cf.Created = v1.Time{Time: o.Created}
	cf.Config.Entrypoint = []string{Entrypoint}
	cf.Config.User = User
	cf.Config.WorkingDir = "/"
	cf.Config.Env = []string{"PATH=/"}
	if o.CACerts != "" {
		cf.Config.Env = append(cf.Config.Env, "SSL_CERT_FILE="+CABundle)
	}
	cf.Config.Labels = o.Labels()
	return mutate.ConfigFile(img, cf)
}

// Write writes the image as a `docker save` tarball tagged o.Ref.
func Write(w io.Writer, o Options) error {
	tag, err := name.NewTag(o.Ref)
	if err != nil {
		return fmt.Errorf("image name %q: %w", o.Ref, err)
	}
	img, err := Image(o)
	if err != nil {
		return err
	}
	return tarball.Write(tag, img, w)
}

// files is the layer: the directories and files, owned by root, at time o.Created.
func files(o Options) ([]byte, error) {
	type file struct {
		path string
		mode int64
		from string // a file to copy, or
		data []byte
	}
	fs := []file{
		{path: "etc/", mode: 0o755},
		{path: "etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{path: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnonroot:x:65532:\n")},
		{path: "home/", mode: 0o755},
		{path: "home/nonroot/", mode: 0o700},
		{path: "tmp/", mode: 0o1777},
		{path: "LICENSE", mode: 0o644, from: o.License},
		{path: Entrypoint[1:], mode: 0o755, from: o.Binary},
	}
	if o.CACerts != "" {
		fs = append(fs, file{path: "etc/ssl/", mode: 0o755}, file{path: "etc/ssl/certs/", mode: 0o755},
			file{path: CABundle[1:], mode: 0o644, from: o.CACerts})
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range fs {
		h := &tar.Header{Name: f.path, Mode: f.mode, ModTime: o.Created, Format: tar.FormatPAX}
		switch {
		case f.path[len(f.path)-1] == '/':
			h.Typeflag = tar.TypeDir
		case f.from != "":
			data, err := os.ReadFile(f.from)
			if err != nil {
				return nil, err
			}
			f.data = data
			fallthrough
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if f.path == "home/nonroot/" {
			h.Uid, h.Gid = 65532, 65532
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
