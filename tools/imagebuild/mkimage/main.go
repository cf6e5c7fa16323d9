// Command mkimage writes mvpctl's container image as a `docker save` tarball, without a
// container daemon (imagebuild): `make image` runs it.
//
//	go run ./tools/imagebuild/mkimage -binary bin/release/mvpctl_linux_amd64 -o bin/mvpctl-image.tar \
//	  -ref ghcr.io/mvpctl/mvpctl:main -version v1.2.3 -revision abc1234 -created 2026-11-28T01:38:32Z
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/tools/imagebuild"
)

func main() {
	var o imagebuild.Options
	var out, created string
	flag.StringVar(&o.Binary, "binary", "", "the static linux mvpctl binary (make release)")
	flag.StringVar(&o.License, "license", "LICENSE", "the licence file, at /LICENSE")
	flag.StringVar(&o.CACerts, "ca-certs", "", "a CA bundle for "+imagebuild.CABundle+" (none when empty)")
	flag.StringVar(&o.Ref, "ref", "ghcr.io/mvpctl/mvpctl:main", "the image's name and tag")
	flag.StringVar(&o.OS, "os", "linux", "the binary's GOOS")
	flag.StringVar(&o.Arch, "arch", "amd64", "the binary's GOARCH")
	flag.StringVar(&created, "created", "", "the image's time, RFC 3339 (the commit's time or SOURCE_DATE_EPOCH's, as make stamps the binary)")
	flag.StringVar(&o.Version, "version", "v0.0.0-dev", "the version label")
	flag.StringVar(&o.Revision, "revision", "unknown", "the commit label")
	flag.StringVar(&o.Source, "source", "https://github.com/mvpctl/mvpctl", "the source label")
	flag.StringVar(&out, "o", "", "the tarball to write")
	flag.Parse()
	t, err := time.Parse(time.RFC3339, created)
	if err != nil || o.Binary == "" || out == "" {
		fmt.Fprintln(os.Stderr, "mkimage: needs -binary FILE, -o FILE and -created TIME (RFC 3339)")
		os.Exit(1)
	}
	o.Created = t.UTC()
	var buf bytes.Buffer
	if err := imagebuild.Write(&buf, o); err != nil {
		fmt.Fprintf(os.Stderr, "mkimage: %v\n", err)
		os.Exit(1)
	}
	if err := snapshot.WriteAtomic(out, buf.Bytes(), ".mvpctl-image-*"); err != nil {
		fmt.Fprintf(os.Stderr, "mkimage: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(out)
}
