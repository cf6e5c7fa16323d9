package clientevidence

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// helmSecretData is a release record as Helm 3 stores it in data.release: JSON, gzip, base64.
func helmSecretData(t *testing.T, name string, revision int, manifest string) []byte {
	t.Helper()
	rec, _ := json.Marshal(map[string]any{"name": name, "namespace": "apps", "version": revision, "manifest": manifest, "info": map[string]any{"status": "deployed"}})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(rec)
	zw.Close()
	return []byte(base64.StdEncoding.EncodeToString(gz.Bytes()))
}

// TestHelmReleases: the helm.sh/release.v1 Secrets are listed by type, page by page; each
// record is decoded (base64, gzip, JSON) and handed on as it is read; a Secret that does not
// decode is one warning.
func TestHelmReleases(t *testing.T) {
	type secret struct {
		Metadata map[string]string `json:"metadata"`
		Data     map[string][]byte `json:"data"`
	}
	pages := [][]secret{
		{{map[string]string{"namespace": "apps", "name": "sh.helm.release.v1.web.v1"}, map[string][]byte{"release": helmSecretData(t, "web", 1, "old")}},
			{map[string]string{"namespace": "apps", "name": "sh.helm.release.v1.web.v2"}, map[string][]byte{"release": helmSecretData(t, "web", 2, "apiVersion: v1\nkind: ConfigMap\n")}}},
		{{map[string]string{"namespace": "apps", "name": "broken"}, map[string][]byte{"release": []byte("not base64!")}}},
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/secrets" || r.URL.Query().Get("fieldSelector") != "type=helm.sh/release.v1" {
			t.Errorf("request %s", r.URL)
		}
		i := 0
		if r.URL.Query().Get("continue") == "1" {
			i = 1
		}
		cont := ""
		if i == 0 {
			cont = "1"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"metadata": map[string]string{"continue": cont}, "items": pages[i]})
	}))
	defer ts.Close()
	var warnings []string
	got := &helmRecorder{room: 1 << 20}
	opts := through(ts.URL)
	opts.Warn = func(s string) { warnings = append(warnings, s) }
	err := HelmReleases(t.Context(), opts, got)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got.added {
		if r.rel.Status != "deployed" || r.rel.Namespace != "apps" || r.rel.Name != "web" {
			t.Errorf("release %+v", r.rel)
		}
	}
	if len(got.added) != 2 || got.added[1].rel.Revision != 2 || got.added[1].manifest != "apiVersion: v1\nkind: ConfigMap\n" || len(got.refused) != 0 {
		t.Errorf("releases %+v, refused %+v", got.added, got.refused)
	}
	// A manifest past the room is measured and refused, not kept.
	small := &helmRecorder{room: 10}
	if err := HelmReleases(t.Context(), through(ts.URL), small); err != nil {
		t.Fatal(err)
	}
	if len(small.added) != 1 || small.added[0].manifest != "old" || len(small.refused) != 1 || small.refused[0] != int64(len("apiVersion: v1\nkind: ConfigMap\n")) {
		t.Errorf("room 10: added %+v, refused %v", small.added, small.refused)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "apps/broken not read: data.release is not base64") {
		t.Errorf("warnings %q", warnings)
	}
}

// helmRecorder keeps what HelmReleases hands it.
type helmRecorder struct {
	room  int64
	added []struct {
		rel      snapshot.HelmRelease
		manifest string
	}
	refused []int64
}

func (h *helmRecorder) Room() int64 { return h.room }

func (h *helmRecorder) Add(rel snapshot.HelmRelease, manifest []byte) error {
	h.added = append(h.added, struct {
		rel      snapshot.HelmRelease
		manifest string
	}{rel, string(manifest)})
	return nil
}

func (h *helmRecorder) Refuse(_ snapshot.HelmRelease, size int64) error {
	h.refused = append(h.refused, size)
	return nil
}
