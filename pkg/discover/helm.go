package discover

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sort"

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
// kubeconfig's server, paged, and returns the newest revision of each release. A Secret that
// does not decode is skipped, with a warning through opts.Warn.
func HelmReleases(ctx context.Context, opts Options) ([]snapshot.HelmRelease, error) {
	c, err := opts.kubeconfigServerClient(&redact.Redactor{})
	if err != nil {
		return nil, err
	}
	newest := map[string]snapshot.HelmRelease{}
	cont := ""
	for {
		q := url.Values{"limit": {fmt.Sprint(helmPage)}, "fieldSelector": {"type=" + HelmReleaseType}}
		if cont != "" {
			q.Set("continue", cont)
		}
		var list helmSecretList
		if _, err := c.getJSON(ctx, "/api/v1/secrets?"+q.Encode(), "application/json", &list); err != nil {
			return nil, err
		}
		for _, s := range list.Items {
			rel, err := decodeHelmRelease(s.Data["release"])
			if err != nil {
				if opts.Warn != nil {
					opts.Warn(fmt.Sprintf("Helm release Secret %s/%s not read: %s", s.Metadata.Namespace, s.Metadata.Name, err))
				}
				continue
			}
			key := rel.Namespace + "/" + rel.Name
			if old, ok := newest[key]; !ok || rel.Revision > old.Revision {
				newest[key] = rel
			}
		}
		if cont = list.Metadata.Continue; cont == "" {
			break
		}
	}
	out := make([]snapshot.HelmRelease, 0, len(newest))
	for _, r := range newest {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name })
	return out, nil
}

// decodeHelmRelease decodes a release record: base64, gzip (Helm compresses it), JSON.
func decodeHelmRelease(data []byte) (snapshot.HelmRelease, error) {
	raw, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		return snapshot.HelmRelease{}, fmt.Errorf("data.release is not base64: %w", err)
	}
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return snapshot.HelmRelease{}, err
		}
		raw, err = io.ReadAll(io.LimitReader(zr, MaxHelmManifest+1))
		if err != nil {
			return snapshot.HelmRelease{}, err
		}
		if len(raw) > MaxHelmManifest {
			return snapshot.HelmRelease{}, fmt.Errorf("release record larger than %d MiB", MaxHelmManifest>>20)
		}
	}
	var rec helmRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return snapshot.HelmRelease{}, fmt.Errorf("release record: %w", err)
	}
	return snapshot.HelmRelease{Namespace: rec.Namespace, Name: rec.Name, Revision: rec.Version, Status: rec.Info.Status, Manifest: rec.Manifest}, nil
}
