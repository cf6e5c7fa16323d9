package apiclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestStoppedPluginRunsOnce: once the process stopped a credential plugin while a request
// ran it, the request says why, and a later request fails the same way without running it
// again (client-go would run it for every request that finds no credentials, each run
// costing the memory its output took).
func TestStoppedPluginRunsOnce(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	runs := filepath.Join(t.TempDir(), "runs")
	plugin := &rest.Config{ExecProvider: execConfig("sh", "-c", "echo run >> '"+runs+"'; sleep 0.2; exit 1")}
	c := tlsClient(t, srv, plugin, Options{Timeout: 10 * time.Second})
	defer func() { stoppedPlugins.Delete("sh"); pluginStopped.Store("") }()
	go func() { // the process's watch, stopping the plugin once it runs
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(runs); err == nil {
				NotePluginStopped("it wrote more than 16 MiB")
				return
			}
		}
	}()
	const want = `credential plugin "sh" was stopped: it wrote more than 16 MiB (so no request was sent)`
	for i := range 2 {
		_, err := c.Get(context.Background(), "/", "")
		if e := asError(t, err); e.Kind != KindConfig || !strings.Contains(e.Msg, want) {
			t.Errorf("request %d: %s %q, want %q", i+1, e.Kind, e.Msg, want)
		}
	}
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "run") != 1 {
		t.Errorf("the plugin ran %d times, want once", strings.Count(string(b), "run"))
	}
}
