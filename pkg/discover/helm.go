package discover

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
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
	Manifest  string `json:"manifest"`
	Info      struct {
		Status string `json:"status"`
	} `json:"info"`
}

// HelmReleases lists the helm.sh/release.v1 Secrets of every namespace through the
// kubeconfig's server, paged, and hands each record to each as it is decoded, with its
// manifest's text, which is not kept: each maps what it needs. An error from each stops the
// list and is returned (a budget spent). A Secret that does not decode is skipped, with a
// warning through opts.Warn.
func HelmReleases(ctx context.Context, opts Options, each func(rel snapshot.HelmRelease, manifest string) error) error {
	c, err := opts.kubeconfigServerClient(&redact.Redactor{})
	if err != nil {
		return err
	}
	cont := ""
	for {
		q := url.Values{"limit": {fmt.Sprint(helmPage)}, "fieldSelector": {"type=" + HelmReleaseType}}
		if cont != "" {
			q.Set("continue", cont)
		}
		var list helmSecretList
		if _, err := c.getJSON(ctx, "/api/v1/secrets?"+q.Encode(), "application/json", &list); err != nil {
			return err
		}
		for i := range list.Items {
			if err := ctx.Err(); err != nil {
				return err
			}
			s := &list.Items[i]
			rel, manifest, err := decodeHelmRelease(s.Data["release"])
			s.Data = nil // the page's records go as they are read
			if err != nil {
				if opts.Warn != nil {
					opts.Warn(fmt.Sprintf("Helm release Secret %s/%s not read: %s", s.Metadata.Namespace, s.Metadata.Name, err))
				}
				continue
			}
			if err := each(rel, manifest); err != nil {
				return err
			}
		}
		if cont = list.Metadata.Continue; cont == "" {
			return nil
		}
	}
}

// decodeHelmRelease decodes a release record: base64, gzip (Helm compresses it), JSON; the
// decompressed record is bounded by MaxHelmManifest.
func decodeHelmRelease(data []byte) (snapshot.HelmRelease, string, error) {
	var r io.Reader = base64.NewDecoder(base64.StdEncoding, bytes.NewReader(data))
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return snapshot.HelmRelease{}, "", err
		}
		r = zr
	} else {
		r = br
	}
	// Read whole, then decoded: json.Decoder moves its buffer as a 30 MiB value streams in,
	// which costs more than the decoding.
	raw, err := io.ReadAll(io.LimitReader(r, MaxHelmManifest+1))
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return snapshot.HelmRelease{}, "", fmt.Errorf("data.release is not base64: %w", err)
		}
		return snapshot.HelmRelease{}, "", fmt.Errorf("release record: %w", err)
	}
	if len(raw) > MaxHelmManifest {
		return snapshot.HelmRelease{}, "", fmt.Errorf("release record larger than %d MiB", MaxHelmManifest>>20)
	}
	var rec helmRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return snapshot.HelmRelease{}, "", fmt.Errorf("release record: %w", err)
	}
	return snapshot.HelmRelease{Namespace: rec.Namespace, Name: rec.Name, Revision: rec.Version, Status: rec.Info.Status}, rec.Manifest, nil
}
