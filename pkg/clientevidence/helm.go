package clientevidence

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"

	"github.com/mvpctl/mvpctl/pkg/redact"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Helm releases as client evidence (opt-in: it reads Secrets). Helm 3 keeps each revision of a
// release in a Secret of type helm.sh/release.v1 whose data.release is the release record:
// base64 (Helm's, inside the Secret's own), gzip, JSON; its manifest is what it applied.

// HelmReleaseType is the type of the Secrets Helm keeps releases in.
const HelmReleaseType = "helm.sh/release.v1"

// Bounds of a Helm release read: Secrets per page, and the size of one release's manifest
// once decompressed.
const (
	helmPage        = 50
	MaxHelmManifest = 32 << 20
)

// helmSecretList is the part of a SecretList Helm's records are read from.
type helmSecretList struct {
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
	Items []struct {
		Metadata struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"metadata"`
		Data map[string][]byte `json:"data"` // JSON's base64 decoded
	} `json:"items"`
}

// helmRecord is the part of Helm's release record mvpctl reads.
type helmRecord struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Version   int    `json:"version"`
	Info      struct {
		Status string `json:"status"`
	} `json:"info"`
}

// HelmRecords take the release records HelmReleases reads, one at a time (replay.HelmMapper).
type HelmRecords interface {
	// Room is how many bytes of manifest a record may have to be taken whole.
	Room() int64
	// Add takes a record and its manifest, which is only valid during the call.
	Add(rel snapshot.HelmRelease, manifest []byte) error
	// Refuse is told of a record whose manifest, size bytes long, is past Room: it was not kept.
	Refuse(rel snapshot.HelmRelease, size int64) error
}

// HelmReleases lists the helm.sh/release.v1 Secrets of every namespace through the
// kubeconfig's server, paged, and hands each record to into as it is decoded: its manifest
// when it fits into.Room, else its size. An error from into stops the list and is returned (a
// budget spent). A Secret that does not decode is skipped, with a warning through opts.Warn.
func HelmReleases(ctx context.Context, opts Options, into HelmRecords) error {
	c, err := opts.Connect(&redact.Redactor{})
	if err != nil {
		return err
	}
	var buf []byte // every record's manifest in turn
	cont := ""
	for {
		q := url.Values{"limit": {fmt.Sprint(helmPage)}, "fieldSelector": {"type=" + HelmReleaseType}}
		if cont != "" {
			q.Set("continue", cont)
		}
		var list helmSecretList
		if _, err := c.GetJSON(ctx, "/api/v1/secrets?"+q.Encode(), "application/json", &list); err != nil {
			return err
		}
		for i := range list.Items {
			if err := ctx.Err(); err != nil {
				return err
			}
			s := &list.Items[i]
			room := into.Room()
			rel, manifest, size, err := decodeHelmRelease(s.Data["release"], buf, room)
			s.Data = nil // the page's records go as they are read
			if err != nil {
				if opts.Warn != nil {
					opts.Warn(fmt.Sprintf("Helm release Secret %s/%s not read: %s", s.Metadata.Namespace, s.Metadata.Name, err))
				}
				continue
			}
			if manifest == nil && size > 0 {
				err = into.Refuse(rel, size)
			} else {
				if manifest != nil {
					buf = manifest
				}
				err = into.Add(rel, manifest)
			}
			if err != nil {
				return err
			}
		}
		if cont = list.Metadata.Continue; cont == "" {
			return nil
		}
	}
}

// decodeHelmRelease decodes a release record as it is decompressed (base64, gzip, JSON:
// scanRecord), its manifest into buf when it is at most room bytes long; the decompressed
// record is bounded by MaxHelmManifest.
func decodeHelmRelease(data, buf []byte, room int64) (rel snapshot.HelmRelease, manifest []byte, size int64, err error) {
	var r io.Reader = base64.NewDecoder(base64.StdEncoding, bytes.NewReader(data))
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return rel, nil, 0, err
		}
		r = zr
	} else {
		r = br
	}
	limited := &io.LimitedReader{R: r, N: MaxHelmManifest + 1}
	rec, manifest, size, err := scanRecord(limited, buf, min(room, MaxHelmManifest))
	if limited.N == 0 {
		return rel, nil, 0, fmt.Errorf("release record larger than %d MiB", MaxHelmManifest>>20)
	}
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return rel, nil, 0, fmt.Errorf("data.release is not base64: %w", err)
		}
		return rel, nil, 0, fmt.Errorf("release record: %w", err)
	}
	return snapshot.HelmRelease{Namespace: rec.Namespace, Name: rec.Name, Revision: rec.Version, Status: rec.Info.Status}, manifest, size, nil
}
