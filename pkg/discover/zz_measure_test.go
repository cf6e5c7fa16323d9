package discover

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestZZMeasureHelmBudget(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip()
	}
	page, err := os.ReadFile("/tmp/helmpage.json")
	if err != nil {
		page = makePage()
		os.WriteFile("/tmp/helmpage.json", page, 0o600)
		return
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(page)
	}))
	defer ts.Close()
	start := time.Now()
	m := replay.NewHelmMapper(replay.NewBudget())
	err = HelmReleases(t.Context(), Options{Config: &rest.Config{Host: ts.URL}}, m.Add)
	ev := m.Evidence(&snapshot.Snapshot{})
	t.Logf("page %d bytes; %v; err %v; source %+v", len(page), time.Since(start), err, ev.Sources[0])
}

func makePage() []byte {
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: " + strings.Repeat("v", 3000) + "\n---\n"
	manifest := strings.Repeat(doc, (30<<20)/len(doc))
	var items []any
	for i := range 40 {
		rec, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("rel%d", i), "namespace": "apps", "version": 1, "manifest": manifest, "info": map[string]any{"status": "deployed"}})
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(rec)
		zw.Close()
		items = append(items, map[string]any{"metadata": map[string]string{"namespace": "apps", "name": fmt.Sprintf("r%d", i)},
			"data": map[string]string{"release": base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString(gz.Bytes())))}})
	}
	page, _ := json.Marshal(map[string]any{"metadata": map[string]string{}, "items": items})
	return page
}
